#!/bin/bash
# The shell completions (completions/): each is loaded by its shell and
# asked what it offers, as a user pressing TAB would get it: every option
# of SPEC.md, the kill scope, backend and signal names, and after the
# operand the command's own completion, never runx's options.  Then
# `make install DESTDIR=...` puts the three files where their shells look
# for them, and each shell loads the installed file by itself.
#
# bash: bash-completion's bash_completion is sourced, then _runx is called
# with COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT as readline sets them.
# zsh: an interactive zsh on a pseudo-terminal (zsh/zpty) with compinit;
# the listing shown after TAB is read back.  fish: `complete -C LINE`.
# (shellcheck: the zsh and fish programs are single-quoted on purpose.)
# shellcheck source=tests/integration/lib.sh disable=SC2016
. "$TESTLIB"

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
COMPDIR=$SRCDIR/completions
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -r "$BASH_COMPLETION" ] || skip_all "bash-completion is needed (scripts/install-deps)"
require_command zsh "(scripts/install-deps)"
require_command fish "(scripts/install-deps)"
require_command perl "to strip escape sequences from zsh's screen"

# Every option of SPEC.md.
LONG_OPTS=(--timeout --signal --kill-after --grace --preserve-status
	--idle-timeout --kill-scope --kill-group --kill-cgroup --foreground
	--wait-all --stop-signals --launch --close-fds --stdin --stdout --stderr
	--append --merge --verbose --report --help --version --memory-max
	--pids-max --cpu-max --attempts --retry-on --retry-delay --backoff
	--retry-delay-max --jitter --total-timeout --success-exit --user
	--no-new-privs --rlimit --chdir --umask)
SHORT_OPTS=(-t -s -k -p -G -C -i -o -e -a -m -v -u -h -V)
SCOPES=(child group tree cgroup pidns auto)
BACKENDS=(posix_spawn fork vfork clone3)

# 15 bash, 10 zsh, 12 fish, 7 make install
plan $((15 + 10 + 12 + 7))

# has_all LABEL TEXT WORD...: TEXT holds each WORD as a whole word (an
# option may be followed by '='); one TAP line naming the missing ones.
has_all() {
	check_words "$1" "$2" present "${@:3}"
}

# has_none LABEL TEXT WORD...: TEXT holds none of the WORDs.
has_none() {
	check_words "$1" "$2" absent "${@:3}"
}

# check_words LABEL TEXT present|absent WORD...: one TAP line, naming the
# WORDs that are not as wanted (a whole word; an option may be followed
# by '=').
check_words() {
	local label=$1 text=$2 want=$3 w odd="" seen
	shift 3
	for w in "$@"; do
		seen=absent
		grep -q -E -e "(^|[[:space:]])$w(=|[[:space:]]|$)" <<<"$text" && seen=present
		[ "$seen" = "$want" ] || odd+=" $w"
	done
	if [ -z "$odd" ]; then
		ok "$label"
	elif [ "$want" = present ]; then
		not_ok "$label" "missing:$odd
got: $text"
	else
		not_ok "$label" "unexpected:$odd
got: $text"
	fi
}

# --- bash ------------------------------------------------------------------------

# The driver: sources bash_completion and FILE, then for each LINE prints
# COMPREPLY one a line after completing LINE with the cursor at its end
# (COMP_WORDS split as readline splits: at blanks and around '=').
cat >"$TMPD/bash-complete" <<'EOF'
file=$1
shift
. /usr/share/bash-completion/bash_completion
if [ "$file" = -load ]; then
	# bash-completion finds the completion by itself (XDG_DATA_DIRS).
	__load_completion runx || echo "LOAD FAILED"
else
	. "$file"
fi
# compopt only works while readline completes: nospace is not tested.
compopt() { :; }
for line in "$@"; do
	COMP_LINE=$line COMP_POINT=${#line} COMP_WORDS=()
	for w in $line; do
		while [[ $w == *=* ]]; do
			[[ -n ${w%%=*} ]] && COMP_WORDS+=("${w%%=*}")
			COMP_WORDS+=("=")
			w=${w#*=}
		done
		[[ -n $w ]] && COMP_WORDS+=("$w")
	done
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	$(complete -p runx | sed -n 's/.*-F \([^ ]*\).*/\1/p')
	printf '%s\n' "${COMPREPLY[@]}"
done
EOF

# bcomp LINE [FILE]: bash's completions of LINE (FILE: the completion file,
# default completions/runx.bash; -load: bash-completion's loader).
bcomp() {
	bash --norc --noprofile "$TMPD/bash-complete" "${2:-$COMPDIR/runx.bash}" "$1" 2>&1
}

has_all "bash: runx - lists every short and long option" "$(bcomp 'runx -')" \
	"${SHORT_OPTS[@]}" "${LONG_OPTS[@]}"
assert_eq "bash: runx --kill-sc completes to --kill-scope=" "--kill-scope=" \
	"$(bcomp 'runx --kill-sc')"
has_all "bash: runx --kill-scope= lists the scopes" "$(bcomp 'runx --kill-scope=')" "${SCOPES[@]}"
has_all "bash: runx --kill-scope (next word) lists the scopes" \
	"$(bcomp 'runx --kill-scope ')" "${SCOPES[@]}"
assert_eq "bash: runx --kill-scope=t gives tree" tree "$(bcomp 'runx --kill-scope=t')"
has_all "bash: runx --launch= lists the backends" "$(bcomp 'runx --launch=')" "${BACKENDS[@]}"
has_all "bash: runx -s lists signal names" "$(bcomp 'runx -s ')" HUP INT TERM KILL USR1 RTMIN
has_all "bash: runx -vs TE gives TERM (a cluster of short options)" \
	"$(bcomp 'runx -vs TE')" TERM
has_all "bash: --stop-signals=HUP,T completes the last name of the list" \
	"$(bcomp 'runx --stop-signals=HUP,T')" HUP,TERM HUP,TRAP
mkdir -p "$TMPD/files"
: >"$TMPD/files/out.log"
assert_eq "bash: runx -o completes file names" "$TMPD/files/out.log" \
	"$(bcomp "runx -o $TMPD/files/ou")"
assert_eq "bash: runx --report= completes file names" "$TMPD/files/out.log" \
	"$(bcomp "runx --report=$TMPD/files/ou")"
has_all "bash: the operand is completed as a command" "$(bcomp 'runx -t 5 -- ech')" echo
has_all "bash: the operand after --opt=value is completed as a command" \
	"$(bcomp 'runx --timeout=5 --kill-scope=tree ech')" echo
out=$(bcomp 'runx -t 5s -k 1 ls --al')
has_all "bash: after the operand, the command's own options (ls --all)" "$out" --all
has_none "bash: after the operand, none of runx's options" "$out" --kill-scope --timeout

# --- zsh -------------------------------------------------------------------------

# The driver: an interactive zsh on a pty with FPATH-DIR first on $fpath
# and compinit; for each LINE, it types LINE and TAB, reads the screen up
# to a marker printed by the next command line, and prints it between
# ">>> LINE" and "<<<" with escape sequences removed.  Keys typed while
# zsh still runs the previous command meet the terminal in cooked mode,
# where ^U would erase them: so each LINE is typed only once the prompt
# (READY) is on the screen, and the terminal has no kill character.
# compinit -D: no dump file (a dump is written with mv: never name a
# device such as /dev/null for it with -d).
cat >"$TMPD/zsh-complete" <<'EOF'
zmodload zsh/zpty || exit 2
dir=$1
shift
zpty z zsh -f -i
zpty -w z "stty rows 300 columns 250 kill undef; PS1='READY%% '; LISTMAX=0; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; zstyle ':completion:*' list-separator '--'"
zpty -w z "print -r -- M0Q''END"
zpty -r z x '*M0QEND*READY% ' || exit 3
i=0
for line in "$@"; do
	i=$((i + 1))
	zpty -w -n z "$line"$'\t'
	zpty -w -n z $'\C-u'
	zpty -w z "print -r -- M${i}Q''END"
	zpty -r z x "*M${i}QEND*READY% " || exit 3
	print -r -- ">>> $line"
	print -r -- "$x" | perl -pe 's/\e\[[0-9;?]*[a-zA-Z]//g; s/[\r\a\b]//g'
	print -r -- "<<<"
done
zpty -d z
EOF

ZSH_LINES=('runx -' 'runx --kill-sc' 'runx --kill-scope=' 'runx --launch '
	'runx -s ' 'runx --stop-signals=HUP,' 'runx -t 5 -- ech' 'runx -t 5 ls --al')
# zsh_out LINE: what zsh showed for LINE (from one run of the driver).
zsh_out() {
	awk -v l=">>> $1" '$0 == l { on = 1; next } on && /^<<<$/ { exit } on' "$TMPD/zsh.out"
}
# zsh_run DIR: run the driver over ZSH_LINES with DIR on $fpath.
zsh_run() {
	guarded 180 zsh -f "$TMPD/zsh-complete" "$1" "${ZSH_LINES[@]}" >"$TMPD/zsh.out" 2>&1
}
zsh_status=$(st zsh_run "$COMPDIR")
assert_eq "zsh: the completion driver ran" 0 "$zsh_status" "$(cat "$TMPD/zsh.out")"
has_all "zsh: runx - lists every short and long option" "$(zsh_out 'runx -')" \
	"${SHORT_OPTS[@]}" "${LONG_OPTS[@]}"
assert_match "zsh: runx --kill-sc completes to --kill-scope=" "runx --kill-scope=" \
	"$(zsh_out 'runx --kill-sc')"
has_all "zsh: runx --kill-scope= lists the scopes" "$(zsh_out 'runx --kill-scope=')" "${SCOPES[@]}"
has_all "zsh: runx --launch lists the backends" "$(zsh_out 'runx --launch ')" "${BACKENDS[@]}"
has_all "zsh: runx -s lists signal names" "$(zsh_out 'runx -s ')" HUP INT TERM KILL USR1 RTMIN
has_all "zsh: --stop-signals=HUP, lists the names for the next one" \
	"$(zsh_out 'runx --stop-signals=HUP,')" TERM INT QUIT
assert_match "zsh: the operand is completed as a command" "runx -t 5 -- echo" \
	"$(zsh_out 'runx -t 5 -- ech')"
out=$(zsh_out 'runx -t 5 ls --al')
has_all "zsh: after the operand, the command's own options (ls --all)" "$out" --all
has_none "zsh: after the operand, none of runx's options" "$out" --kill-scope --timeout

# --- fish ------------------------------------------------------------------------

# fcomp LINE [SETUP]: fish's completions of LINE, the first field of each
# (SETUP: fish code run first; default: source completions/runx.fish).
fcomp() {
	guarded 60 fish --no-config -c "${2:-source \$argv[2]}; complete -C \$argv[1]" \
		"$1" "$COMPDIR/runx.fish" 2>&1 | cut -f1
}

has_all "fish: runx - lists every short option" "$(fcomp 'runx -')" "${SHORT_OPTS[@]}"
has_all "fish: runx -- lists every long option" "$(fcomp 'runx --')" "${LONG_OPTS[@]}"
has_all "fish: runx --ki lists the --kill-* options" "$(fcomp 'runx --ki')" \
	--kill-scope --kill-group --kill-cgroup --kill-after
has_all "fish: runx --kill-scope= lists the scopes" \
	"$(fcomp 'runx --kill-scope=' | sed 's/^--kill-scope=//')" "${SCOPES[@]}"
has_all "fish: runx --kill-scope (next word) lists the scopes" "$(fcomp 'runx --kill-scope ')" "${SCOPES[@]}"
has_all "fish: runx --launch= lists the backends" \
	"$(fcomp 'runx --launch=' | sed 's/^--launch=//')" "${BACKENDS[@]}"
has_all "fish: runx -s lists signal names" "$(fcomp 'runx -s ')" HUP INT TERM KILL USR1 RTMIN
has_all "fish: --stop-signals=HUP,T completes the last name of the list" \
	"$(fcomp 'runx --stop-signals=HUP,T' | sed 's/^--stop-signals=//')" HUP,TERM HUP,TRAP
assert_eq "fish: runx -o completes file names" "$TMPD/files/out.log" \
	"$(fcomp "runx -o $TMPD/files/ou")"
has_all "fish: the operand is completed as a command" "$(fcomp 'runx -t 5 -- ech')" echo
out=$(fcomp 'runx -t 5s -k 1 ls --al' "source \$argv[2]; complete -c ls -l all")
has_all "fish: after the operand, the command's own options (ls --all)" "$out" --all
has_none "fish: after the operand, none of runx's options" "$out" --kill-scope --timeout

# --- make install ----------------------------------------------------------------

top=$(dirname "$(dirname "$RUNX")")
stage=$TMPD/stage
if [ -f "$top/Makefile" ]; then
	s=0
	env -u MAKEFLAGS -u MFLAGS make -s -C "$top" install DESTDIR="$stage" \
		>"$TMPD/install.log" 2>&1 || s=$?
	assert_eq "make install DESTDIR=... succeeds" 0 "$s" "$(cat "$TMPD/install.log")"
else
	not_ok "make install DESTDIR=..." "no Makefile in $top: RUNX must be the build's src/runx"
fi
prefix=$(sed -n 's/^prefix = //p' "$top/Makefile" 2>/dev/null)
share=$stage${prefix:-/usr/local}/share
for f in "bash-completion/completions/runx:runx.bash" "zsh/site-functions/_runx:_runx" \
	"fish/vendor_completions.d/runx.fish:runx.fish"; do
	assert_true "installed: \$(datadir)/${f%%:*} is completions/${f#*:}" \
		cmp -s "$share/${f%%:*}" "$COMPDIR/${f#*:}"
done
has_all "installed bash completion: bash-completion loads it by itself" \
	"$(XDG_DATA_DIRS=$share:/usr/share bcomp 'runx --kill-scope=' -load)" "${SCOPES[@]}"
ZSH_LINES=('runx --kill-scope=')
zsh_run "$share/zsh/site-functions"
has_all "installed zsh completion: compinit finds it on \$fpath" \
	"$(zsh_out 'runx --kill-scope=')" "${SCOPES[@]}"
# fish loads a command's completion only for a command on PATH.
has_all "installed fish completion: fish autoloads it from vendor_completions.d" \
	"$(PATH=$stage${prefix:-/usr/local}/bin:$PATH fcomp 'runx --kill-scope ' \
		"set fish_complete_path $share/fish/vendor_completions.d")" "${SCOPES[@]}"

done_testing
