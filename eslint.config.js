// Lint configuration: the recommended and type-aware rules of typescript-eslint over all TypeScript sources, and the
// import boundaries between the parts of the project (test/lint/boundaries.test.ts shows each one failing).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// ---------------------------------------------------------------- import boundaries
//
// Each boundary forbids import specifiers matching `regex`, static (`import`, `export … from`) or dynamic
// (`import()`). Specifiers are matched as written; every folder named here exists once in the tree, so a relative
// path that passes through one of them can only mean that folder.

/** The DynamoDB adapter's inside: outside lib/store, use the Store port or `createDynamoStore` (lib/store/index.ts). */
const STORE_ADAPTER = {
  regex: '^\\.{1,2}/(.*/)?store/dynamodb/',
  message: "lib/store/dynamodb is the adapter's inside: import lib/store/index.ts (the port, createDynamoStore).",
};
/** The fakes of lib/testing are for tests, benchmarks and the demo, never for product code. */
const TEST_FAKES = {
  regex: '^\\.{1,2}/(.*/)?testing/',
  message: 'product code does not import the test fakes of lib/testing.',
};
/** The demo's simulated world is reached through `pipelinectl demo` only. */
const DEMO = {
  regex: '^\\.{1,2}/(.*/)?demo/',
  message: 'only lib/cli/commands/demo.ts imports lib/demo.',
};
/** lib/ is what the functions, the infrastructure, the CLI, the tests and the benchmarks build on, not the reverse. */
const OUTSIDE_LIB = {
  regex: '^\\.{1,2}/(\\.\\./)*(functions|infra|test|bench)/',
  message: 'lib/ does not import functions/, infra/, test/ or bench/.',
};

/**
 * The decision is the pure core at the bottom: it builds only on the model (lib/pipeline), Flux's vocabulary
 * (lib/flux) and lib/util, and on no package, so that it stays a function of its input.
 */
const DECISION_CORE = {
  regex: '^(?!\\./|\\.\\./(pipeline|flux|util)/)',
  message: 'lib/decision imports only lib/pipeline, lib/flux, lib/util and itself.',
};
/** What status, explain and the dashboard show is read through lib/pipeline-state, the verifier's own read model. */
const VERIFIER = {
  regex: '^\\.{1,2}/(.*/)?verifier/',
  message:
    'lib/views and lib/cli do not import lib/verifier: the read model is lib/pipeline-state, the verifier is assembled by lib/runtime.',
};

/**
 * zod's classic API is imported as a namespace, `import * as z from 'zod'`: `import { z } from 'zod'` makes esbuild
 * keep the whole `z` object in a bundle, every locale and the JSON Schema converters with it (about 350 KiB that a
 * verifier's cold start compiles). Not a boundary, but the same rule enforces it, so it goes with every block.
 */
const ZOD_NAMESPACE = {
  // no-restricted-imports' importNames would forbid `import * as z` too.
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: "import zod as `import * as z from 'zod'`: `{ z }` bundles all of zod, every locale included.",
};

/** One config block: the `restrictions` apply to `files` but not to `ignores`; the blocks below never overlap. */
function boundary(files, ignores, restrictions) {
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': ['error', { patterns: restrictions.map(({ regex, message }) => ({ regex, message })) }],
      // no-restricted-imports does not look at import(): the same boundaries for dynamic imports.
      'no-restricted-syntax': [
        'error',
        ...restrictions.map(({ regex, message }) => ({
          // A selector's regular expression ends at the first `/`, so the slashes are spelled \x2F.
          selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`,
          message,
        })),
        ZOD_NAMESPACE,
      ],
    },
  };
}

const under = (...folders) => folders.map((folder) => `${folder}/**/*.{ts,js,mjs}`);
const DEMO_COMMAND = 'lib/cli/commands/demo.ts';

const importBoundaries = [
  // Product code in lib/.
  boundary(
    under('lib'),
    ['lib/store/**', 'lib/testing/**', 'lib/demo/**', 'lib/decision/**', 'lib/views/**', 'lib/cli/**'],
    [STORE_ADAPTER, TEST_FAKES, DEMO, OUTSIDE_LIB],
  ),
  boundary(under('lib/decision'), [], [DECISION_CORE]),
  boundary(under('lib/views', 'lib/cli'), [DEMO_COMMAND], [STORE_ADAPTER, TEST_FAKES, DEMO, OUTSIDE_LIB, VERIFIER]),
  boundary(under('lib/store'), [], [TEST_FAKES, DEMO, OUTSIDE_LIB]),
  boundary([DEMO_COMMAND], [], [STORE_ADAPTER, TEST_FAKES, OUTSIDE_LIB, VERIFIER]),
  // The fakes and the demo may use the fakes, never the adapter's inside; the fakes know nothing of the demo.
  boundary(under('lib/testing'), [], [STORE_ADAPTER, DEMO, OUTSIDE_LIB]),
  boundary(under('lib/demo'), [], [STORE_ADAPTER, OUTSIDE_LIB]),
  // Product code outside lib/.
  boundary(under('functions', 'infra', 'bin'), [], [STORE_ADAPTER, TEST_FAKES, DEMO]),
  // Tests and benchmarks may use the fakes and the demo; only the store's own tests look inside its adapter.
  boundary(under('test', 'bench'), ['test/store/**'], [STORE_ADAPTER]),
];

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // node:test's describe/it return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after'] },
          ],
        },
      ],
      eqeqeq: ['error', 'always'],
    },
  },
  ...importBoundaries,
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
);
