/** The fleet bench's progress lines, each stamped with the seconds since the run began. */
export type RunLog = (line: string) => void;

export function startRunLog(): RunLog {
  const started = performance.now();
  return (line) => {
    process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
}
