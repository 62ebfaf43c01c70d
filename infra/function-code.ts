// Where each function's code comes from. The installed package carries the bundles that `npm pack` built
// (scripts/bundle.ts, with the settings of bundling.ts) beside its compiled construct, and there the construct deploys
// them as they are: a CDK app that uses the package runs no esbuild and needs none of this repository's sources. A
// checkout of the repository has no bundles beside infra/, so it bundles the sources with esbuild at synth, as
// `npm run synth` does (bundledSources).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type * as Esbuild from 'esbuild';
import {
  BUNDLE_FILE,
  ENTRIES,
  esbuildOptions,
  prebuiltBundleDirectory,
  REPO_ROOT,
  type FunctionName,
} from './bundling.js';

/** Where a function's code comes from: the package's prebuilt bundle, or this checkout's sources (esbuild). */
export type FunctionCodeSource = 'prebuilt-bundle' | 'sources';

/** A function's settings other than its code and handler, which follow from where the code comes from. */
export type HandlerFunctionProps = Omit<lambda.FunctionProps, 'code' | 'handler'>;

/** dist/ in the installed package (this module is dist/infra/function-code.js); the repository root in a checkout. */
const COMPILED_ROOT = new URL('../', import.meta.url);

/** Where `name`'s code comes from in this copy of the construct. */
export function functionCodeSource(name: FunctionName): FunctionCodeSource {
  if (existsSync(path.join(prebuiltBundleDirectory(COMPILED_ROOT, name), BUNDLE_FILE))) return 'prebuilt-bundle';
  if (existsSync(ENTRIES[name])) return 'sources';
  // A package packed without its prepack step has neither; say what is missing rather than let esbuild fail on it.
  throw new Error(
    `pipeline-controller: no code for the ${name} function: neither the prebuilt bundle ` +
      `${prebuiltBundleDirectory(COMPILED_ROOT, name)} nor the source ${ENTRIES[name]} exists ` +
      '(a package must be made with `npm pack`, which builds the bundles)',
  );
}

/** The Lambda function of the handler `name` (`index.handler` in either case). */
export function handlerFunction(
  scope: Construct,
  id: string,
  name: FunctionName,
  props: HandlerFunctionProps,
): lambda.Function {
  const code =
    functionCodeSource(name) === 'prebuilt-bundle'
      ? lambda.Code.fromAsset(prebuiltBundleDirectory(COMPILED_ROOT, name))
      : bundledSources(name);
  return new lambda.Function(scope, id, { ...props, code, handler: 'index.handler' });
}

/**
 * This checkout's sources of `name`, bundled at synth by the esbuild beside them (a devDependency) with the options
 * of bundling.ts: an entry and its chunks, which NodejsFunction's single `--outfile` cannot make. Synths that skip
 * bundling (the tests) never run it.
 */
function bundledSources(name: FunctionName): lambda.Code {
  return lambda.Code.fromAsset(REPO_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never run: the local bundling below either bundles or throws. The command names the function, since the
      // asset cache tells bundlings apart by their options.
      image: DockerImage.fromRegistry('local-esbuild'),
      command: ['bundle', name],
      local: {
        tryBundle(outputDir: string): boolean {
          const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
          esbuild.buildSync({ ...esbuildOptions(name, path.join(outputDir, BUNDLE_FILE)), logLevel: 'warning' });
          return true;
        },
      },
    },
  });
}
