/** The threads of the test process, as Linux shows them (`/proc/self/task`); Assent runs in this process. */
import { readdirSync, readFileSync } from 'node:fs';

/** The nice value of each thread of this process (field 19 of `/proc/self/task/{tid}/stat`, proc(5)). */
export function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name in parentheses: state is field 3, nice field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}
