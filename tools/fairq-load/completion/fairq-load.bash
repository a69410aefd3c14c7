# SPDX-License-Identifier: GPL-2.0-only
# bash completion for fairq-load(1)
_fairq_load()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case "$prev" in
	-p | --proto)
		COMPREPLY=($(compgen -W 'nfs3 nfs4.1' -- "$cur"))
		return ;;
	-O | --op)
		COMPREPLY=($(compgen -W 'null getattr' -- "$cur"))
		return ;;
	--v4-conn)
		COMPREPLY=($(compgen -W 'bind sequence' -- "$cur"))
		return ;;
	--forge-sequence)
		COMPREPLY=($(compgen -W 'random' -- "$cur"))
		return ;;
	--series)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-b | --bind)
		COMPREPLY=($(compgen -W "$(ip -o addr show 2>/dev/null | awk '{ sub("/.*", "", $4); print $4 }')" -- "$cur"))
		return ;;
	-K | --connections | -W | --window | -B | --burst | -I | --idle | -d | --duration | \
	-w | --warmup | -n | --calls | --port | --mount-port | --slots | --timeout | --interval | --label | \
	--forge-repeat)
		return ;;
	esac
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W '-p --proto -O --op -K --connections -W --window -B --burst
			-I --idle -d --duration -w --warmup -n --calls -b --bind -P --resvport --port
			--mount-port --v4-conn --slots --timeout --series --interval --label
			--forge-sequence --forge-repeat -j --json -v --verbose -V --version -h --help' -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -A hostname -- "$cur"))
}
complete -F _fairq_load fairq-load
