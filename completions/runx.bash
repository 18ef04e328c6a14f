# bash completion for runx(1)                               -*- shell-script -*-
#
# Needs bash-completion (_init_completion, _filedir, _command_offset).
# Installed by `make install` in bash-completion's completionsdir, where
# it is loaded on first use of `runx`.  Options stop at the first operand
# (the command), as runx's own parsing does; from there on the command's
# own completion takes over.

# The short options that take a value (attached or in the next word).
_runx_short_with_value=tskioeu

# The long options that take a value, and those that take none.
_runx_long_with_value="--timeout --signal --kill-after --grace --idle-timeout
	--kill-scope --stop-signals --forward-to --launch --stdin --stdout --stderr --report
	--memory-max --pids-max --cpu-max --attempts --retry-on --retry-delay
	--backoff --retry-delay-max --jitter --total-timeout --success-exit
	--user --rlimit --chdir --umask"
_runx_long_plain="--preserve-status --kill-group --kill-cgroup --foreground
	--wait-all --close-fds --append --merge --verbose --help --version
	--no-new-privs"
_runx_short="-t -s -k -p -G -C -i -o -e -a -m -v -u -h -V"

_runx_scopes="child group tree cgroup pidns auto"
_runx_retry_kinds="failure timeout signal oom"
_runx_backends="posix_spawn fork vfork clone3"
_runx_rlimits="as core cpu data fsize memlock msgqueue nice nofile nproc rss rtprio rttime sigpending stack"
_runx_signals="HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE
	ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF
	WINCH IO PWR SYS RTMIN RTMAX"

# _runx_short_value_opt WORD: for a cluster of short options (-vt), the
# option that takes its value from the next word (-t), if any.
_runx_short_value_opt()
{
	local w=$1 j c
	for ((j = 1; j < ${#w}; j++)); do
		c=${w:j:1}
		if [[ $_runx_short_with_value == *"$c"* ]]; then
			((j == ${#w} - 1)) && printf -- '-%s\n' "$c"
			return
		fi
	done
}

# _runx_long_takes_value WORD: true if WORD is a long option with a value.
_runx_long_takes_value()
{
	local o
	for o in $_runx_long_with_value; do
		[[ $1 == "$o" ]] && return 0
	done
	return 1
}

# _runx_operand_index: the index in COMP_WORDS of runx's first operand
# (the command), up to COMP_CWORD; nothing if there is none yet.
# COMP_WORDS is split at '=' (COMP_WORDBREAKS): "--timeout = 5".
_runx_operand_index()
{
	local i=1 w
	while ((i <= COMP_CWORD)); do
		w=${COMP_WORDS[i]}
		case $w in
			--)
				((i + 1 <= COMP_CWORD)) && echo $((i + 1))
				return
				;;
			--?*)
				if [[ ${COMP_WORDS[i + 1]-} == = ]]; then
					((i += 3))
				elif _runx_long_takes_value "$w"; then
					((i += 2))
				else
					((i++))
				fi
				;;
			-?*)
				if [[ -n $(_runx_short_value_opt "$w") ]]; then
					((i += 2))
				else
					((i++))
				fi
				;;
			-)
				# "-" alone is an operand, unless it is the word
				# being completed: the start of an option.
				((i < COMP_CWORD)) && echo "$i"
				return
				;;
			*)
				echo "$i"
				return
				;;
		esac
	done
}

# _runx_signal_list: complete a comma-separated signal list in $cur.
_runx_signal_list()
{
	local head="" tail=$cur
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		tail=${cur##*,}
	fi
	local IFS=$'\n'
	# shellcheck disable=SC2207
	COMPREPLY=($(compgen -P "$head" -W "${_runx_signals//[[:space:]]/$'\n'}" -- "${tail^^}"))
	compopt -o nospace
}

# _runx_value OPTION: complete the value of OPTION in $cur.
_runx_value()
{
	case $1 in
		-s | --signal)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -W "$_runx_signals" -- "${cur^^}"))
			;;
		--stop-signals) _runx_signal_list ;;
		--retry-on)
			# the kinds, then signal names; statuses are typed
			local head="" tail=$cur
			if [[ $cur == *,* ]]; then
				head=${cur%,*},
				tail=${cur##*,}
			fi
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -P "$head" -W "$_runx_retry_kinds" -- "$tail"))
			compopt -o nospace
			;;
		--attempts)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -W "inf" -- "$cur"))
			;;
		--kill-scope)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -W "$_runx_scopes" -- "$cur"))
			;;
		--forward-to)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -W "scope child" -- "$cur"))
			;;
		--launch)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -W "$_runx_backends" -- "$cur"))
			;;
		-i | --stdin | -o | --stdout | -e | --stderr | --report) _filedir ;;
		-u | --user)
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -u -- "$cur"))
			;;
		--rlimit)
			# RES=, then SOFT[:HARD] is typed
			if [[ $cur != *=* ]]; then
				# shellcheck disable=SC2207
				COMPREPLY=($(compgen -S = -W "$_runx_rlimits" -- "$cur"))
				compopt -o nospace
			fi
			;;
		--chdir) _filedir -d ;;
		*) ;; # durations, sizes, counts: nothing to offer
	esac
}

# _runx: the completion function for runx.
_runx()
{
	# shellcheck disable=SC2034 # words, cword: set by _init_completion
	local cur prev words cword split
	_init_completion -s || return

	local operand
	operand=$(_runx_operand_index)
	if [[ -n $operand ]]; then
		_command_offset "$operand"
		return
	fi

	local opt=$prev
	[[ $prev == -[!-]* ]] && opt=$(_runx_short_value_opt "$prev")
	if [[ $split == true ]] || _runx_long_takes_value "$opt" ||
		[[ $opt == -[$_runx_short_with_value] ]]; then
		_runx_value "$opt"
		return
	fi

	if [[ $cur == -* ]]; then
		local w long_values=""
		for w in $_runx_long_with_value; do
			long_values+=" $w="
		done
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "$_runx_short $_runx_long_plain $long_values" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
	fi
}
complete -F _runx runx
