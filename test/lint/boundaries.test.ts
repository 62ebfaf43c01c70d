// The import boundaries of eslint.config.js, tried the way `npm run lint` applies them: the project's own
// configuration, on deliberate violations (each is an error naming the boundary) and on the imports each part may
// make (no error). The type-aware rules are switched off here: they need files on disk, and the boundaries do not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

const eslint = new ESLint({ cwd: ROOT, overrideConfig: [tseslint.configs.disableTypeChecked] });

/** The messages of the boundary rules for `code` as if it were the file at `filePath` (relative to the root). */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  assert.ok(result, 'one result');
  const fatal = result.messages.filter((message) => message.fatal);
  assert.deepEqual(fatal, [], 'the code parses');
  return result.messages
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
    .map((message) => {
      assert.equal(message.severity, 2, 'an error, not a warning');
      return message.message;
    });
}

const VIOLATIONS: { boundary: string; filePath: string; code: string; says: RegExp }[] = [
  {
    boundary: 'product code reaching into the DynamoDB adapter',
    filePath: 'lib/cli/operations/x.ts',
    code: "import { keys } from '../../store/dynamodb/table.js';\nexport { keys };\n",
    says: /lib\/store\/dynamodb is the adapter's inside/,
  },
  {
    boundary: 'a benchmark reaching into the DynamoDB adapter',
    filePath: 'bench/x.ts',
    code: "export { DynamoAuditLog } from '../lib/store/dynamodb/audit.js';\n",
    says: /lib\/store\/dynamodb is the adapter's inside/,
  },
  {
    boundary: 'a test outside test/store reaching into the DynamoDB adapter',
    filePath: 'test/cli/x.test.ts',
    code: "import type { TableContext } from '../../lib/store/dynamodb/table.js';\nexport type { TableContext };\n",
    says: /lib\/store\/dynamodb is the adapter's inside/,
  },
  {
    boundary: 'product code in lib importing a test fake',
    filePath: 'lib/cli/x.ts',
    code: "import { FakeGitHub } from '../testing/fake-github.js';\nexport { FakeGitHub };\n",
    says: /product code does not import the test fakes/,
  },
  {
    boundary: 'a function handler importing a test fake',
    filePath: 'functions/verifier/x.ts',
    code: "export * from '../../lib/testing/fake-kube-api.js';\n",
    says: /product code does not import the test fakes/,
  },
  {
    boundary: 'the infrastructure importing a test fake, dynamically',
    filePath: 'infra/x.ts',
    code: "export const load = () => import('../lib/testing/fake-github.js');\n",
    says: /product code does not import the test fakes/,
  },
  {
    boundary: 'a command other than demo importing the demo',
    filePath: 'lib/cli/commands/status.ts',
    code: "export const load = () => import('../../demo/run.js');\n",
    says: /only lib\/cli\/commands\/demo.ts imports lib\/demo/,
  },
  {
    boundary: 'the test fakes importing the demo',
    filePath: 'lib/testing/x.ts',
    code: "import { runDemo } from '../demo/run.js';\nexport { runDemo };\n",
    says: /only lib\/cli\/commands\/demo.ts imports lib\/demo/,
  },
  {
    boundary: 'lib importing a function handler',
    filePath: 'lib/verifier/x.ts',
    code: "import { handler } from '../../functions/verifier/handler.js';\nexport { handler };\n",
    says: /lib\/ does not import functions\/, infra\/, test\/ or bench\//,
  },
  {
    boundary: 'lib importing the infrastructure',
    filePath: 'lib/x/y/z.ts',
    code: "import type { PipelineController } from '../../../infra/pipeline-controller.js';\nexport type { PipelineController };\n",
    says: /lib\/ does not import functions\/, infra\/, test\/ or bench\//,
  },
  {
    boundary: 'lib importing test support',
    filePath: 'lib/store/x.ts',
    code: "import { settled } from '../../test/loop/harness.js';\nexport { settled };\n",
    says: /lib\/ does not import functions\/, infra\/, test\/ or bench\//,
  },
  {
    boundary: 'the decision importing the store',
    filePath: 'lib/decision/x.ts',
    code: "import type { Store } from '../store/port.js';\nexport type { Store };\n",
    says: /lib\/decision imports only lib\/pipeline, lib\/flux, lib\/util and itself/,
  },
  {
    boundary: 'the decision importing a strategy, dynamically',
    filePath: 'lib/decision/x.ts',
    code: "export const load = () => import('../promotion/strategies.js');\n",
    says: /lib\/decision imports only lib\/pipeline, lib\/flux, lib\/util and itself/,
  },
  {
    boundary: 'the decision importing a package',
    filePath: 'lib/decision/x.ts',
    code: "import * as z from 'zod';\nexport { z };\n",
    says: /lib\/decision imports only lib\/pipeline, lib\/flux, lib\/util and itself/,
  },
  {
    boundary: 'the views importing the verifier',
    filePath: 'lib/views/x.ts',
    code: "import { evaluatePipeline } from '../verifier/evaluate.js';\nexport { evaluatePipeline };\n",
    says: /lib\/views and lib\/cli do not import lib\/verifier/,
  },
  {
    boundary: 'a CLI action importing the verifier',
    filePath: 'lib/cli/operations/x.ts',
    code: "import { DEFAULT_SETTINGS } from '../../verifier/index.js';\nexport { DEFAULT_SETTINGS };\n",
    says: /lib\/views and lib\/cli do not import lib\/verifier/,
  },
  {
    boundary: 'the dashboard importing the verifier, dynamically',
    filePath: 'lib/cli/dashboard/x.ts',
    code: "export const load = () => import('../../verifier/evaluate.js');\n",
    says: /lib\/views and lib\/cli do not import lib\/verifier/,
  },
  {
    boundary: "zod's `z` as a named import, which bundles all of zod",
    filePath: 'lib/promotion/gitlab/x.ts',
    code: "import { z } from 'zod';\nexport const name = z.string();\n",
    says: /import \* as z from 'zod'/,
  },
  {
    boundary: 'the CLI still reaching into the DynamoDB adapter',
    filePath: 'lib/cli/operations/x.ts',
    code: "import { keys } from '../../store/dynamodb/table.js';\nexport { keys };\n",
    says: /lib\/store\/dynamodb is the adapter's inside/,
  },
];

const ALLOWED: { why: string; filePath: string; code: string }[] = [
  {
    why: 'product code imports the store through its index',
    filePath: 'lib/cli/operations/x.ts',
    code: "import { createDynamoStore } from '../../store/index.js';\nimport type { Store } from '../../store/port.js';\nexport { createDynamoStore, type Store };\n",
  },
  {
    why: 'the store imports its own adapter',
    filePath: 'lib/store/index.ts',
    code: "export { createDynamoStore } from './dynamodb/store.js';\n",
  },
  {
    why: "the store's tests look inside the adapter",
    filePath: 'test/store/x.test.ts',
    code: "import { keys } from '../../lib/store/dynamodb/table.js';\nexport { keys };\n",
  },
  {
    why: 'tests and benchmarks use the fakes',
    filePath: 'bench/x.ts',
    code: "import { FakeGitHub } from '../lib/testing/fake-github.js';\nexport { FakeGitHub };\n",
  },
  {
    why: 'the demo uses the fakes',
    filePath: 'lib/demo/x.ts',
    code: "import { FakeKubeApi } from '../testing/fake-kube-api.js';\nexport { FakeKubeApi };\n",
  },
  {
    why: 'the demo command loads the demo',
    filePath: 'lib/cli/commands/demo.ts',
    code: "export const load = () => import('../../demo/run.js');\n",
  },
  {
    why: 'the CLI loads the demo command (a module named demo, not the folder)',
    filePath: 'lib/cli/main.ts',
    code: "export const load = () => import('./commands/demo.js');\n",
  },
  {
    why: 'a function handler builds on lib',
    filePath: 'functions/receiver/x.ts',
    code: "import { handleRequest } from '../../lib/http/index.js';\nexport { handleRequest };\n",
  },
  {
    why: 'tests use the demo',
    filePath: 'test/demo/x.test.ts',
    code: "import { runDemo } from '../../lib/demo/run.js';\nexport { runDemo };\n",
  },
  {
    why: 'the decision builds on the model, Flux, lib/util and itself',
    filePath: 'lib/decision/x.ts',
    code: "import type { Pipeline } from '../pipeline/model.js';\nimport { sameRevision } from '../flux/revision.js';\nimport { durationMs } from '../util/duration.js';\nimport type { Decision } from './types.js';\nexport { sameRevision, durationMs, type Pipeline, type Decision };\n",
  },
  {
    why: 'the views, the CLI and the dashboard read the pipeline state through lib/pipeline-state',
    filePath: 'lib/cli/dashboard/x.ts',
    code: "import { readPipelineState } from '../../pipeline-state/pipeline-state.js';\nexport { readPipelineState };\n",
  },
  {
    why: 'the verifier reads the pipeline state through lib/pipeline-state',
    filePath: 'lib/verifier/x.ts',
    code: "import { decideWithReads } from '../pipeline-state/decide-with-reads.js';\nexport { decideWithReads };\n",
  },
  {
    why: 'a CLI command assembles the verifier through lib/runtime',
    filePath: 'lib/cli/commands/x.ts',
    code: "import { assembleVerifier } from '../../runtime/assemble-verifier.js';\nexport { assembleVerifier };\n",
  },
];

describe('import boundaries (eslint.config.js)', () => {
  for (const { boundary, filePath, code, says } of VIOLATIONS) {
    it(`fails the lint: ${boundary}`, async () => {
      const errors = await boundaryErrors(filePath, code);
      assert.equal(errors.length, 1, `one error, got ${JSON.stringify(errors)}`);
      assert.match(errors[0] ?? '', says);
    });
  }

  for (const { why, filePath, code } of ALLOWED) {
    it(`passes: ${why}`, async () => {
      assert.deepEqual(await boundaryErrors(filePath, code), []);
    });
  }
});
