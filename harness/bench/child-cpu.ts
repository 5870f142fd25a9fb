import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const clockTicks = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for:
 * the difference around one child run is that child's CPU time, whatever else the machine does.
 */
export const childCpuSeconds = (): number => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime are fields 16 and 17 of the line; `fields` starts at field 3.
  return (Number(fields[13]) + Number(fields[14])) / clockTicks;
};
