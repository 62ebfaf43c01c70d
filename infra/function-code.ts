// Where each function's code comes from. The installed package carries the bundles that `npm pack` built
// (scripts/bundle.ts, with the settings of bundling.ts) beside its compiled construct, and there the construct deploys
// them as they are: a CDK app that uses the package runs no esbuild and needs none of this repository's sources. A
// checkout of the repository has no bundles beside infra/, so it bundles the sources with NodejsFunction, as
// `npm run synth` and the tests do.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import {
  BUNDLE_FILE,
  BUNDLE_SETTINGS,
  ENTRIES,
  LOCK_FILE,
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
  if (functionCodeSource(name) === 'prebuilt-bundle') {
    const code = lambda.Code.fromAsset(prebuiltBundleDirectory(COMPILED_ROOT, name));
    return new lambda.Function(scope, id, { ...props, code, handler: 'index.handler' });
  }
  const s = BUNDLE_SETTINGS;
  return new nodejs.NodejsFunction(scope, id, {
    ...props,
    entry: ENTRIES[name],
    handler: 'handler',
    projectRoot: REPO_ROOT,
    depsLockFilePath: LOCK_FILE,
    bundling: {
      target: s.target,
      format: nodejs.OutputFormat.ESM,
      minify: s.minify,
      sourceMap: s.sourceMap,
      sourcesContent: s.sourcesContent,
      mainFields: [...s.mainFields],
      banner: s.banner,
      externalModules: [...s.externalModules],
      esbuildArgs: Object.fromEntries(Object.entries(s.alias).map(([from, to]) => [`--alias:${from}`, to])),
    },
  });
}
