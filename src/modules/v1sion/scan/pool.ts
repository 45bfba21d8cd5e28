// Bounded concurrency for the scan's stages: at most `limit` tasks in flight, none started after a cancel.

/** Runs `fn` over `items` with at most `limit` in flight; stops starting new ones once `signal` aborts. */
export async function pool<T>(items: readonly T[], limit: number, signal: AbortSignal, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
