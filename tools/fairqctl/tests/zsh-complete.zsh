#!/usr/bin/zsh -f
# SPDX-License-Identifier: GPL-2.0-only
#
#   zsh-complete.zsh COMPLETION_DIR WORDS...
# The matches zsh's completion system offers at the end of the command line "WORDS" (a trailing
# empty word: a new one), on one line, sorted.  The completion functions come from
# COMPLETION_DIR; fairqctl and ip are stand-ins that offer what a running system would.
# Completion runs only in the line editor, so an interactive zsh on a pseudo-terminal gets the
# line and a Tab, and a hook after completion prints what compadd was given that matched.
zmodload zsh/zpty || { print -u2 "zsh-complete: no zsh/zpty"; exit 3 }
dir=${1:A}
shift
setup=$(mktemp) || exit 3
trap 'rm -f $setup; zpty -d fq 2>/dev/null' EXIT
cat >$setup <<SETUP
PS1='' PROMPT='' RPROMPT=''
fpath=($dir \$fpath)
autoload -Uz compinit && compinit -u -D
fairqctl() {
	case "\$*" in
	("sched --names") print -l fifo qfifo fq ;;
	("sched --params") print -l fq.key fq.quantum_us ;;
	(weights) print -l "10.0.0.1 3" "10.0.0.0/24 2" ;;
	# another namespace: another kernel view
	("--netns=s2 sched --names") print -l fifo fq ;;
	("--netns=s2 sched --params") print -l fq.key ;;
	("--netns=s2 weights") print -l "10.0.0.1 3" ;;
	("class list --names") print -l render backup default ;;
	("--netns=s2 class list --names") print -l web default ;;
	esac
}
ip() { [[ "\$*" == "netns list" ]] && print -l "s1 (id: 0)" s2 }
typeset -ga fc_matches
# compadd as the functions call it, recording the words that match what is typed; calls that
# only ask which words would match (-O, -A, -D) pass through
compadd() {
	local -a opts matched
	opts=("\${(@)argv[1,\${argv[(i)(-|--)]}-1]}")
	if (( \${opts[(I)-[OAD]*]} )); then
		builtin compadd "\$@"
		return
	fi
	builtin compadd -O matched "\$@"
	fc_matches+=(\$matched)
	builtin compadd "\$@"
}
fc_report() { print -r -- "FQ-MATCHES:\${(j: :)\${(@ou)fc_matches}}:"; fc_matches=() }
comppostfuncs=(fc_report)
zstyle ':completion:*' insert-tab false
bindkey '^I' complete-word
print FQ-READY
SETUP
zpty fq zsh -f -i
zpty -w fq "source $setup"
got=""
while zpty -r -t fq line 2>/dev/null || { sleep 0.05; zpty -r fq line; }; do
	[[ $line == *FQ-READY* && $line != *print* ]] && break
done
zpty -w -n fq "${(j: :)@}"$'\t'
for i in {1..200}; do
	if zpty -r -t fq line 2>/dev/null; then
		if [[ $line == *FQ-MATCHES:*:* ]]; then
			got=${${line#*FQ-MATCHES:}%%:*}
			print -r -- "$got"
			exit 0
		fi
	else
		sleep 0.05
	fi
done
print -u2 "zsh-complete: no completion report for '$*'"
exit 2
