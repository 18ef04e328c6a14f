# fish completion for runx(1).  Installed by `make install` in
# $(datadir)/fish/vendor_completions.d.  Options stop at the first operand
# (the command), as runx's own parsing does; from there on the command's
# own completion takes over.

# The index, in the words before the cursor (commandline -opc), of runx's
# first operand (the command); nothing while there is none: every word so
# far is an option or the value of one.
function __runx_operand_index
    set -l words (commandline -opc)
    set -l want_value 0
    for i in (seq 2 (count $words))
        set -l w $words[$i]
        if test $want_value -eq 1
            set want_value 0
            continue
        end
        switch $w
            case --
                # The operand follows (it may be the word being typed).
                echo (math $i + 1)
                return
            case --timeout --signal --kill-after --grace --idle-timeout --kill-scope \
                --stop-signals --launch --stdin --stdout --stderr --report \
                --memory-max --pids-max --cpu-max --attempts --retry-on \
                --retry-delay --backoff --retry-delay-max --jitter \
                --total-timeout --success-exit --user --rlimit --chdir --umask
                set want_value 1
            case '--*'
            case '-?*'
                # A cluster of short options: the first that takes a value
                # takes the rest of the word, or the next word.
                set -l chars (string split '' -- (string sub -s 2 -- $w))
                set -l n (count $chars)
                for j in (seq $n)
                    if string match -q -r '[tskioeu]' -- $chars[$j]
                        test $j -eq $n; and set want_value 1
                        break
                    end
                end
            case '*'
                echo $i
                return
        end
    end
end

# True while no operand has been typed yet (runx's options apply).
function __runx_no_operand
    test -z "$(__runx_operand_index)"
end

# After the operand: what the command itself completes.
function __runx_command
    set -l i (__runx_operand_index)
    set -l words (commandline -opc)
    if test $i -gt (count $words)
        # The word under the cursor is the command (just after "--").
        __fish_complete_command
        return
    end
    set -l cmd (string escape -- $words[$i..-1]) (string escape -- (commandline -ct))
    complete -C -- (string join ' ' -- $cmd)
end

# The signal names offered for -s and --stop-signals (runx also takes
# SIGTERM, any case, numbers, RTMIN+n).
set -l __runx_signals HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 \
    PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM \
    PROF WINCH IO PWR SYS RTMIN RTMAX

# --stop-signals=LIST: the signal names, after what the word already holds
# up to its last comma.
function __runx_signal_list
    set -l cur (commandline -ct)
    set -l head (string replace -r -- '^--stop-signals=' '' $cur)
    if string match -q -- '*,*' $head
        set head (string replace -r -- ',[^,]*$' ',' $head)
    else
        set head ''
    end
    for s in $argv
        printf '%s%s\n' $head $s
    end
end

set -l n __runx_no_operand

complete -c runx -f
complete -c runx -n "not $n" -x -a '(__runx_command)'
complete -c runx -n $n -x -a '(__fish_complete_command)' -d Command

complete -c runx -n $n -s t -l timeout -x -d 'Stop the command after DURATION (0 or inf: no limit)'
complete -c runx -n $n -s s -l signal -x -a "$__runx_signals" -d 'First signal of a stop (default TERM)'
complete -c runx -n $n -s k -l kill-after -x -d 'SIGKILL what is left DURATION after the first signal'
complete -c runx -n $n -l grace -x -d 'Same as --kill-after'
complete -c runx -n $n -s p -l preserve-status -d "On timeout, exit with the command's own status"
complete -c runx -n $n -l idle-timeout -x -d 'Stop the command after DURATION without output'
complete -c runx -n $n -l kill-scope -x -d 'Which processes a stop reaches' -a '
child\t"only the direct child"
group\t"the process group of a new session (default)"
tree\t"every descendant (child subreaper)"
cgroup\t"a cgroup v2 of its own (cgroup.kill)"
pidns\t"a new PID namespace with an init of runx\'s"
auto\t"cgroup where it works, else tree"'
complete -c runx -n $n -s G -l kill-group -d 'Same as --kill-scope=group'
complete -c runx -n $n -s C -l kill-cgroup -d 'Same as --kill-scope=cgroup'
complete -c runx -n $n -l foreground -d "Keep the command in runx's process group and terminal"
complete -c runx -n $n -l wait-all -d 'When the command exits, wait for the whole scope'
complete -c runx -n $n -l stop-signals -x -a "(__runx_signal_list $__runx_signals)" -d 'Signals that start a stop (default TERM,INT)'
complete -c runx -n $n -l forward-to -x -d 'Where forwarded signals go' -a '
scope\t"the whole scope (default)"
child\t"only the direct child"'
complete -c runx -n $n -l launch -x -d 'How the command is started' -a '
posix_spawn\t"posix_spawn(3) (the default)"
fork\t"fork(2) and execve(2)"
vfork\t"clone(CLONE_VM|CLONE_VFORK) and execve(2)"
clone3\t"clone3(2) with CLONE_PIDFD"'
complete -c runx -n $n -l close-fds -d 'Close inherited file descriptors above 2'
complete -c runx -n $n -s i -l stdin -r -F -d 'Standard input from FILE'
complete -c runx -n $n -s o -l stdout -r -F -d 'Standard output to FILE'
complete -c runx -n $n -s e -l stderr -r -F -d 'Standard error to FILE'
complete -c runx -n $n -s a -l append -d 'Append to the -o/-e files'
complete -c runx -n $n -s m -l merge -d 'Standard error to where standard output goes'
complete -c runx -n $n -s v -l verbose -d 'Say each decision on standard error'
complete -c runx -n $n -l report -r -F -d 'Write a JSON report of the run (-: stderr)'
complete -c runx -n $n -l memory-max -x -d 'Memory limit of the job (K, M, G, T)'
complete -c runx -n $n -l pids-max -x -d 'At most N processes and threads in the job'
complete -c runx -n $n -l cpu-max -x -d "At most CPUS processors' worth of time"
complete -c runx -n $n -l attempts -x -a inf -d 'Run the command up to N times (default 1)'
complete -c runx -n $n -l retry-on -x -a 'failure timeout signal oom' -d 'Outcomes that start another attempt'
complete -c runx -n $n -l retry-delay -x -d 'The wait before the second attempt (default 1s)'
complete -c runx -n $n -l backoff -x -d 'Each later wait times FACTOR (default 2)'
complete -c runx -n $n -l retry-delay-max -x -d 'The longest wait (default 5m)'
complete -c runx -n $n -l jitter -x -d 'Shorten each wait by a random part up to FRACTION'
complete -c runx -n $n -l total-timeout -x -d 'Deadline of the whole run (exit 124)'
complete -c runx -n $n -l success-exit -x -d 'Exit statuses and signals that count as success'
complete -c runx -n $n -s u -l user -x -a '(__fish_complete_users)' -d 'Run the command as USER[:GROUP]'
complete -c runx -n $n -l no-new-privs -d 'Set PR_SET_NO_NEW_PRIVS in the command'
complete -c runx -n $n -l rlimit -x -a 'as= core= cpu= data= fsize= memlock= msgqueue= nice= nofile= nproc= rss= rtprio= rttime= sigpending= stack=' -d 'A resource limit: RES=SOFT[:HARD]'
complete -c runx -n $n -l chdir -x -a '(__fish_complete_directories)' -d "The command's working directory"
complete -c runx -n $n -l umask -x -d "The command's umask (octal)"
complete -c runx -n $n -s h -l help -d 'Show the help and exit'
complete -c runx -n $n -s V -l version -d 'Show the version and exit'
