# SPDX-License-Identifier: GPL-2.0-only
# bash completion for fairqctl(8): commands and options; scheduler names and tunables are asked
# of fairqctl itself, so they are the ones the running kernel offers, and through the network
# namespace the command line names (-n/--netns), as the command will ask.

# $fc_netns: the namespace of the line being completed (set by _fairqctl)
_fairqctl_scheds()
{
	fairqctl ${fc_netns:+--netns="$fc_netns"} sched --names 2>/dev/null
}

# SCHED.TUNABLE for every tunable of every scheduler offered.
_fairqctl_params()
{
	fairqctl ${fc_netns:+--netns="$fc_netns"} sched --params 2>/dev/null
}

# The QoS classes of the active scheduler.
_fairqctl_classes()
{
	fairqctl ${fc_netns:+--netns="$fc_netns"} class list --names 2>/dev/null
}

# The network namespaces ip netns knows.
_fairqctl_netns()
{
	ip netns list 2>/dev/null | while read -r name _; do echo "$name"; done
}

_fairqctl()
{
	# plain COMP_WORDS: works with or without the bash-completion package
	local cword=$COMP_CWORD
	local -a words=("${COMP_WORDS[@]}")
	local cur=${words[cword]} prev=${words[cword - 1]}

	local commands="show pools shares sched set weight weights class showconf watch monitor metrics help version"
	local globals="-j --json -p --pretty -e --exact -a --all-netns -n --netns -h --help -V --version"
	local i cmd="" cmd_at=0 fc_netns=""

	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		# and its value; bash splits --netns=NAME into three words at the '='
		-n | --netns)
			[[ ${words[i + 1]} == = ]] && ((i++))
			((i + 1 < cword)) && fc_netns=${words[i + 1]}
			((i++))
			;;
		-*) ;;
		*)
			cmd=${words[i]}
			cmd_at=$i
			break
			;;
		esac
	done
	# --netns may also follow the command (where -n is a count)
	for ((i = cmd_at + 1; cmd_at > 0 && i < cword - 1; i++)); do
		if [[ ${words[i]} == --netns ]]; then
			[[ ${words[i + 1]} == = ]] && ((i++))
			((i + 1 < cword)) && fc_netns=${words[i + 1]}
		fi
	done

	# --netns takes a value after the command too; -n only before it
	if [[ $prev == --netns || ($prev == -n && -z $cmd) ||
		($prev == = && ${words[cword - 2]} == --netns) ]]; then
		COMPREPLY=($(compgen -W "$(_fairqctl_netns)" -- "$cur"))
		return
	fi
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	case "$cmd" in
	sched)
		if [[ $prev == set ]]; then
			COMPREPLY=($(compgen -W "$(_fairqctl_scheds)" -- "$cur"))
		elif ((cword == cmd_at + 1)); then
			COMPREPLY=($(compgen -W "set --names --params --help" -- "$cur"))
		fi
		;;
	set)
		if ((cword == cmd_at + 1)); then
			COMPREPLY=($(compgen -W "$(_fairqctl_params)" -- "$cur"))
		fi
		;;
	shares)
		case "$prev" in
		--pool | --top | --key | --interval | -P | -t | -k | -i) ;;
		--sort | -s) COMPREPLY=($(compgen -W "time requests" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "--pool --top --key --interval --sort --help" -- "$cur")) ;;
		esac
		;;
	watch)
		case "$prev" in
		-i | --interval | -n | --count) ;;
		*) COMPREPLY=($(compgen -W "--interval --count --help" -- "$cur")) ;;
		esac
		;;
	monitor)
		case "$prev" in
		-n | --count | -t | --timeout) ;;
		*) COMPREPLY=($(compgen -W "--count --timeout --help" -- "$cur")) ;;
		esac
		;;
	metrics)
		case "$prev" in
		--top | -t) ;;
		--textfile | -f) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "--top --textfile --help" -- "$cur")) ;;
		esac
		;;
	weights)
		if ((cword == cmd_at + 1)); then
			COMPREPLY=($(compgen -W "prune $(_fairqctl_scheds) --help" -- "$cur"))
		fi
		;;
	class)
		# the subcommand, then NAME, then keywords: most with a value, per-key and shared alone
		local sub="" sub_at=0
		for ((i = cmd_at + 1; i < cword; i++)); do
			if [[ ${words[i]} != -* ]]; then
				sub=${words[i]}
				sub_at=$i
				break
			fi
		done
		case "$sub" in
		"") COMPREPLY=($(compgen -W "add change del list sync --help" -- "$cur")) ;;
		add | change)
			if ((cword == sub_at + 1)); then
				[[ $sub == add ]] || COMPREPLY=($(compgen -W "$(_fairqctl_classes)" -- "$cur"))
				return
			fi
			local valued="" kw
			for ((i = sub_at + 2; i < cword; i++)); do
				if [[ -n $valued ]]; then
					valued=""
				elif [[ ${words[i]} == @(match|rank|limit|burst|weight|reserve) ]]; then
					valued=${words[i]}
				fi
			done
			case "$valued" in
			"") kw="match rank limit burst weight reserve per-key shared"
				COMPREPLY=($(compgen -W "$kw" -- "$cur")) ;;
			limit | weight | reserve) COMPREPLY=($(compgen -W "none" -- "$cur")) ;;
			esac
			;;
		del)
			# the default class cannot be deleted
			((cword != sub_at + 1)) ||
				COMPREPLY=($(compgen -W "$(_fairqctl_classes | grep -vx default)" -- "$cur"))
			;;
		list)
			((cword != sub_at + 1)) || COMPREPLY=($(compgen -W "--names $(_fairqctl_classes)" -- "$cur"))
			;;
		sync) COMPREPLY=($(compgen -W "--check" -- "$cur")) ;;
		esac
		;;
	show | pools | weight | showconf)
		COMPREPLY=($(compgen -W "--help" -- "$cur"))
		;;
	esac
} &&
	complete -F _fairqctl fairqctl
