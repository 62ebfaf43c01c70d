// dynalite, the local mode's DynamoDB, found where it is installed. It is an optional peer dependency of the package:
// a CDK app that installs the package for the construct and `pipelinectl --aws` does not get it (nor LevelDB under
// it), so every use of it goes through here, when the local mode starts, and its absence is one clear error.
import { createRequire } from 'node:module';

/** The local mode cannot run: dynalite is not installed beside the package. */
export class DynaliteMissingError extends Error {
  override name = 'DynaliteMissingError';
}

const requireHere = createRequire(import.meta.url);

/** Where dynalite's package is; a DynaliteMissingError when it is not installed. */
export function dynaliteEntry(): string {
  try {
    return requireHere.resolve('dynalite');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new DynaliteMissingError(
      'the local mode (serve, demo, and the commands run on a data directory) needs dynalite, which is not ' +
        'installed: run `npm install dynalite` beside pipeline-controller, or use --aws --stack NAME',
      { cause: error },
    );
  }
}

/** A `require` from dynalite's own directory: dynalite itself (`'.'`), its modules (`'./db'`) and its `level`. */
export function requireFromDynalite(specifier: string): unknown {
  const entry = dynaliteEntry();
  return specifier === '.' ? requireHere(entry) : createRequire(entry)(specifier);
}
