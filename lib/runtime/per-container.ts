// A Lambda container runs many invocations: clients, caches and the promoter's blob cache are worth keeping between
// them, and building them in the first invocation (not at import) keeps a configuration error inside an invocation,
// where it is logged and retried, rather than failing the container's start.

/**
 * `build` runs on the first call; later calls return what it returned. A build that throws, or returns a promise
 * that rejects, is not kept: the next invocation builds again (e.g. after a missing secret has been created).
 */
export function perContainer<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    if (built) return built.value;
    const value = build();
    const kept = { value };
    built = kept;
    if (value instanceof Promise) {
      value.catch(() => {
        if (built === kept) built = undefined;
      });
    }
    return value;
  };
}
