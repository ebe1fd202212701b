/**
 * Cleanup: every resource registers an undo step; they run once, newest first, on any exit path
 * (normal end, failure, SIGINT/SIGTERM, the watchdog).
 */
const cleanups = [];
let cleaning = null;

export function onCleanup(fn) {
  cleanups.push(fn);
}

export function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${err.message}`);
      }
    }
  })();
  return cleaning;
}

/**
 * Cleans up on SIGINT/SIGTERM (exit 130) and when the run exceeds `deadlineSeconds` (exit 1).
 * @returns the watchdog timer (unref'd), to clear when the run ends.
 */
export function installGuards(deadlineSeconds) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      console.error(`\n${signal}: stopping the benchmark and cleaning up`);
      await cleanup();
      process.exit(130);
    });
  }
  const watchdog = setTimeout(async () => {
    console.error(`\nbenchmark exceeded ${deadlineSeconds}s: aborting and cleaning up`);
    await cleanup();
    process.exit(1);
  }, deadlineSeconds * 1000);
  watchdog.unref();
  return watchdog;
}

/**
 * Runs a benchmark's `main` and clears its watchdog; on failure prints the error, cleans up and
 * sets exit code 1.
 * @param label - names the benchmark in the failure message ("web benchmark").
 */
export async function runBenchmark(label, main, watchdog) {
  try {
    await main();
    clearTimeout(watchdog);
  } catch (err) {
    console.error(`\n${label} failed: ${err.stack ?? err}`);
    await cleanup();
    process.exitCode = 1;
  }
}
