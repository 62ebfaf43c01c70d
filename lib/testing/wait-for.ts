// Waiting for a condition, in one place for the tests, the benchmarks and the demo. The deadline is a guard against a
// hang, never a measure of speed: the suite runs its files side by side on a 2-CPU machine, perhaps beside a second
// copy of itself, so work that takes a second alone can take a minute there. A test that needs a bound on time
// measures it (or drives an injected clock); it does not lean on this deadline.

/** How long a wait lasts before it fails, unless told otherwise. */
export const PATIENCE_MS = 180_000;

export interface WaitOptions {
  /** When to give up; {@link PATIENCE_MS} unless told. */
  timeoutMs?: number;
  /** How often `check` runs. */
  intervalMs?: number;
}

/** Resolves with `check`'s first truthy value; fails with "timed out waiting for <what>" past the deadline. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T> | T,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = PATIENCE_MS, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
