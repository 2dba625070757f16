# SPDX-License-Identifier: Apache-2.0
# offwake-svg.bash - bash completion for offwake-svg.
_offwake_svg()
{
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
	}
	local render="--title --subtitle --width --height --minwidth --fonttype --fontsize
		--fontwidth --countname --nametype --colors --bgcolors --hash --random --cp
		--reverse --inverted --flamechart --negate --notes --total --factor --encoding
		--nameattr --maxdepth --maxsize --help"
	local capture="-p --pid -t --tid -u --user-threads-only -k --kernel-threads-only
		-U --user-stacks-only -K --kernel-stacks-only -d --delimited -f --folded --text
		--stack-storage-size -m --min-block-time -M --max-block-time --state -o --output
		-q --quiet -h --help --version --format --chain-depth --chain-max-age
		--follow --group --unwind --unwind-memory --ring-buffer-size --backlog
		--unknown-frames --cgroup --live --interval --serve --python
		--timeline --event-min"
	case $prev in
	--colors|--color)
		COMPREPLY=($(compgen -W "hot mem io wakeup chain java js perl red green blue aqua yellow purple orange" -- "$cur"))
		return ;;
	--bgcolors)
		COMPREPLY=($(compgen -W "yellow blue green grey" -- "$cur"))
		return ;;
	--chain-depth)
		COMPREPLY=($(compgen -W "1 2 3 4" -- "$cur"))
		return ;;
	--interval)
		COMPREPLY=($(compgen -W "0.5 1 2 5" -- "$cur"))
		return ;;
	--serve)
		COMPREPLY=($(compgen -W "8080 127.0.0.1:8080" -- "$cur"))
		return ;;
	--group)
		COMPREPLY=($(compgen -W "comm process thread" -- "$cur"))
		return ;;
	--unwind)
		COMPREPLY=($(compgen -W "auto fp cfi" -- "$cur"))
		return ;;
	--unknown-frames)
		COMPREPLY=($(compgen -W "file plain" -- "$cur"))
		return ;;
	--python)
		COMPREPLY=($(compgen -W "on off lines" -- "$cur"))
		return ;;
	--format|-F)
		COMPREPLY=($(compgen -W "svg folded pprof speedscope perfetto" -- "$cur"))
		return ;;
	--countname)
		[ "${COMP_WORDS[1]}" = convert ] &&
			COMPREPLY=($(compgen -W "us ns ms s samples bytes" -- "$cur"))
		return ;;
	-p|--pid)
		COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur"))
		return ;;
	-o|--output|--nameattr)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--cgroup)
		COMPREPLY=($(compgen -d -- "${cur:-/sys/fs/cgroup/}"))
		return ;;
	esac
	case ${COMP_WORDS[1]} in
	convert)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--format -F -f -o --output --countname --name --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	render|diff|unfold)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$render $([ "${COMP_WORDS[1]}" != unfold ] && echo -o --output)" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	esac
	if [ "$COMP_CWORD" -eq 1 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "render diff unfold convert" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$capture $render" -- "$cur"))
	fi
}
complete -F _offwake_svg offwake-svg
