// The types of scripts/compile.mjs, which is JavaScript so that the test runner (plain node) can import it too.
/** Compiles every `.ts` under `folders` of `root` (but `except`) into `outdir`, then copies the runtime files. */
export function compileSources(
  root: string,
  outdir: string,
  folders: readonly string[],
  except?: readonly string[],
): Promise<string[]>;
