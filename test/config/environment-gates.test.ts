// The environment gates in a Pipeline (docs/freeze.md, docs/approval-policies.md, docs/rollback.md):
// what `apply` accepts and carries onto the resolved pipeline, and what it refuses, naming the field. A Weave
// Pipeline, which has none of them, loads as before.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions, type LoadResult } from '../../lib/config/index.js';
import { DEFAULT_ROLLBACK_AFTER } from '../../lib/pipeline/environment-policies.js';

const known: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'prod' },
    ],
    secrets: [
      { namespace: 'flux-system', name: 'gh', keys: ['token'] },
      { namespace: 'flux-system', name: 'hmac', keys: ['hmac-key'] },
    ],
  },
};
const PULL_REQUEST = `{type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}`;

interface Shape {
  /** Extra lines of each environment, as written under it (without the indentation). */
  dev?: string[];
  staging?: string[];
  prod?: string[];
  /** `spec.promotion`; by default a pull-request strategy every environment inherits. */
  promotion?: string;
  source?: boolean;
}

/** dev → staging → prod; the extra lines of an environment come after its targets. */
function pipeline(shape: Shape): string {
  const extra = (lines: string[] = []) => lines.map((line) => `      ${line}\n`).join('');
  const source = shape.source
    ? '  source: {kind: ImagePolicy, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}\n'
    : '';
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
${source}  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
${extra(shape.dev)}    - name: staging
      targets: [{namespace: staging, clusterRef: {kind: GitopsCluster, name: dev}}]
${extra(shape.staging)}    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
${extra(shape.prod)}  promotion: ${shape.promotion ?? `{strategy: {pull-request: ${PULL_REQUEST}}}`}
`;
}

const load = (shape: Shape) => loadConfigurationText(pipeline(shape), 'config.yaml', known);

function configurationOf(result: LoadResult) {
  if (!result.ok) assert.fail(`expected a valid configuration, got:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.configuration;
}

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be refused');
  return result.ok ? [] : result.problems.map(formatProblem);
}

const MANUAL_PULL_REQUEST = `promotion: {manual: true, strategy: {pull-request: ${PULL_REQUEST}}}`;
const NOTIFICATION = 'promotion: {strategy: {notification: {}}}';

describe('environment gates that load', () => {
  it('freeze, approval and rollback on prod are carried onto the resolved environment', () => {
    const configuration = configurationOf(
      load({
        prod: [
          'freeze:',
          '  - {from: Fri 16:00, to: Mon 08:00, timeZone: Europe/Berlin, reason: weekend}',
          '  - {from: "22:00", to: 06:00, timeZone: America/New_York}',
          '  - {from: tue 9:00, to: Thu 17:00, timeZone: Asia/Kolkata}',
          MANUAL_PULL_REQUEST,
          'approval:',
          '  required: 2',
          '  approvers:',
          '    keys: [release-approvers]',
          '    principals: ["arn:aws:iam::123456789012:role/release-*", "arn:aws:sts::123456789012:assumed-role/*"]',
          '    users: [alice, bob@example.com]',
          'rollback: pull-request',
          'rollbackAfter: 15m',
        ],
      }),
    );
    const prod = configuration.pipelines[0]?.environments[2];
    assert.deepEqual(prod?.freeze, [
      { from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin', reason: 'weekend' },
      { from: '22:00', to: '06:00', timeZone: 'America/New_York' },
      { from: 'tue 9:00', to: 'Thu 17:00', timeZone: 'Asia/Kolkata' },
    ]);
    assert.deepEqual(prod?.approval, {
      required: 2,
      approvers: {
        keys: ['release-approvers'],
        principals: ['arn:aws:iam::123456789012:role/release-*', 'arn:aws:sts::123456789012:assumed-role/*'],
        users: ['alice', 'bob@example.com'],
      },
    });
    assert.deepEqual(prod?.rollback, { strategy: 'pull-request', after: '15m' });
    const others = configuration.pipelines[0]?.environments.slice(0, 2) ?? [];
    for (const environment of others) {
      assert.deepEqual(
        [environment.freeze, environment.approval, environment.rollback],
        [undefined, undefined, undefined],
      );
    }
  });

  it(`rollback without rollbackAfter waits ${DEFAULT_ROLLBACK_AFTER}`, () => {
    const configuration = configurationOf(load({ staging: ['rollback: pull-request'] }));
    assert.deepEqual(configuration.pipelines[0]?.environments[1]?.rollback, {
      strategy: 'pull-request',
      after: DEFAULT_ROLLBACK_AFTER,
    });
  });

  it('approval on an environment that inherits a manual spec.promotion', () => {
    const configuration = configurationOf(
      load({
        prod: ['approval: {required: 3}'],
        promotion: `{manual: true, strategy: {pull-request: ${PULL_REQUEST}}}`,
      }),
    );
    assert.deepEqual(configuration.pipelines[0]?.environments[2]?.approval, { required: 3 });
  });

  it('approval with only a list of approvers (one approval, from one of them)', () => {
    const configuration = configurationOf(
      load({ prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {users: [alice]}}'] }),
    );
    assert.deepEqual(configuration.pipelines[0]?.environments[2]?.approval, { approvers: { users: ['alice'] } });
  });

  it('rollback on the first environment when spec.source promotes into it', () => {
    const configuration = configurationOf(load({ source: true, dev: ['rollback: pull-request', 'rollbackAfter: 1h'] }));
    assert.deepEqual(configuration.pipelines[0]?.environments[0]?.rollback, { strategy: 'pull-request', after: '1h' });
  });

  it('an empty freeze list is no window', () => {
    const configuration = configurationOf(load({ prod: ['freeze: []'] }));
    assert.deepEqual(configuration.pipelines[0]?.environments[2]?.freeze, []);
  });

  it('a Weave Pipeline without the fields loads unchanged: no gate on any environment', async () => {
    const weave = await readFile(
      join(import.meta.dirname, '..', 'fixtures', 'weave', 'github', 'pipeline.yaml'),
      'utf8',
    );
    const configuration = configurationOf(
      loadConfigurationText(weave, 'pipeline.yaml', {
        defaultCluster: { namespace: 'flux-system', name: 'management' },
        known: {
          clusters: [{ namespace: 'flux-system', name: 'management' }],
          secrets: [{ namespace: 'flux-system', name: 'github-promotion-credentials', keys: ['token'] }],
        },
      }),
    );
    const environments = configuration.pipelines[0]?.environments ?? [];
    assert.equal(environments.length, 2);
    for (const environment of environments) {
      for (const field of ['freeze', 'approval', 'rollback'] as const) assert.equal(field in environment, false, field);
    }
  });
});

const WINDOW = (fields: string) => ['freeze:', `  - {${fields}}`];

const REFUSED: { name: string; shape: Shape; problem: RegExp }[] = [
  // freeze
  {
    name: 'a window end at 24:00',
    shape: { prod: WINDOW('from: Fri 16:00, to: Fri 24:00, timeZone: UTC') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.to: must be a time such as 16:00 or Fri 16:00 .*midnight is 00:00/,
  },
  {
    name: 'a weekday written in full',
    shape: { prod: WINDOW('from: Friday 16:00, to: Mon 08:00, timeZone: UTC') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.from: must be a time such as 16:00 or Fri 16:00/,
  },
  {
    name: 'a weekday at one end only',
    shape: { prod: WINDOW('from: Fri 16:00, to: 08:00, timeZone: UTC') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.to: from and to must both have a weekday .* or neither/,
  },
  {
    name: 'from equal to to',
    shape: { prod: WINDOW('from: Fri 16:00, to: fri 16:00, timeZone: UTC') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.to: must not be the same time as from/,
  },
  {
    name: 'a time zone that is an abbreviation',
    shape: { prod: WINDOW('from: Fri 16:00, to: Mon 08:00, timeZone: Berlin') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.timeZone: must be an IANA time zone such as Europe\/Berlin/,
  },
  {
    name: 'a time zone that is an offset',
    shape: { prod: WINDOW('from: Fri 16:00, to: Mon 08:00, timeZone: "+02:00"') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.timeZone: must be an IANA time zone/,
  },
  {
    name: 'a window without a time zone',
    shape: { prod: WINDOW('from: Fri 16:00, to: Mon 08:00') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.timeZone: is required/,
  },
  {
    name: 'a reason of more than 200 characters',
    shape: { prod: WINDOW(`from: Fri 16:00, to: Mon 08:00, timeZone: UTC, reason: ${'x'.repeat(201)}`) },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.reason: must be at most 200 characters/,
  },
  {
    name: 'an unknown window field',
    shape: { prod: WINDOW('from: Fri 16:00, to: Mon 08:00, timeZone: UTC, until: 2026-01-01') },
    problem: /spec\.environments\[2\]\.freeze\[0\]\.until: unknown field "until"/,
  },
  {
    name: 'more than 20 windows',
    shape: {
      prod: ['freeze:', ...Array.from({ length: 21 }, (_, i) => `  - {from: "${i}:00", to: "${i}:30", timeZone: UTC}`)],
    },
    problem: /spec\.environments\[2\]\.freeze: must have at most 20 windows/,
  },
  {
    name: 'windows that leave no time between them',
    shape: {
      prod: [
        'freeze:',
        '  - {from: Mon 00:00, to: Fri 00:00, timeZone: Europe/Berlin}',
        '  - {from: Thu 00:00, to: Mon 00:00, timeZone: Europe/Berlin}',
      ],
    },
    problem: /spec\.environments\[2\]\.freeze: the windows leave no time at all between them/,
  },
  {
    name: 'freeze as a single window rather than a list',
    shape: { prod: ['freeze: {from: Fri 16:00, to: Mon 08:00, timeZone: UTC}'] },
    problem: /spec\.environments\[2\]\.freeze: must be a list \(found a mapping\)/,
  },

  // approval
  {
    name: 'approval on an environment that is not manual',
    shape: { prod: [NOTIFICATION, 'approval: {required: 2}'] },
    problem:
      /spec\.environments\[2\]\.approval: applies only to a manual environment: set promotion\.manual: true on this environment/,
  },
  {
    name: 'approval on an environment inheriting a promotion that is not manual',
    shape: { prod: ['approval: {required: 2}'] },
    problem:
      /spec\.environments\[2\]\.approval: applies only to a manual environment: set spec\.promotion\.manual: true/,
  },
  {
    name: 'approval with nothing in it',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {}'] },
    problem: /spec\.environments\[2\]\.approval: set required, approvers or both/,
  },
  ...[0, 11, 1.5].map((required) => ({
    name: `required: ${required}`,
    shape: { prod: [MANUAL_PULL_REQUEST, `approval: {required: ${required}}`] },
    problem: /spec\.environments\[2\]\.approval\.required: must be a whole number from 1 to 10/,
  })),
  {
    name: 'required as a string',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {required: "2"}'] },
    problem: /spec\.environments\[2\]\.approval\.required: must be a number \(found a string\)/,
  },
  {
    name: 'approvers with no list',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers: name who may approve: keys, principals or users/,
  },
  {
    name: 'an empty list of keys',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {keys: []}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.keys: must not be empty/,
  },
  {
    name: 'a key that is not a Secret name',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {keys: [Release_Key]}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.keys\[0\]: must be the name of a Secret/,
  },
  {
    name: 'a principal that is not an ARN',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {principals: [role/release]}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.principals\[0\]: must be an IAM principal ARN/,
  },
  {
    name: 'a principal with white space',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {principals: ["arn:aws:iam::1:role/a b"]}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.principals\[0\]: must be an IAM principal ARN/,
  },
  {
    name: 'a user name with white space',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {users: [alice, "bob smith"]}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.users\[1\]: must be a user name/,
  },
  {
    name: 'an empty user name',
    shape: { prod: [MANUAL_PULL_REQUEST, 'approval: {approvers: {users: [""]}}'] },
    problem: /spec\.environments\[2\]\.approval\.approvers\.users\[0\]: must be a user name/,
  },

  // rollback
  {
    name: 'a rollback strategy other than pull-request',
    shape: { prod: ['rollback: revert'] },
    problem: /spec\.environments\[2\]\.rollback: must be pull-request \(the only rollback strategy\)/,
  },
  {
    name: 'rollback where the promotion is a notification',
    shape: { prod: [NOTIFICATION, 'rollback: pull-request'] },
    problem:
      /spec\.environments\[2\]\.rollback: rollback: pull-request needs a pull-request promotion strategy .*set promotion\.strategy\.pull-request on this environment/,
  },
  {
    name: 'rollback where no promotion is in force',
    shape: { prod: ['rollback: pull-request'], promotion: '{strategy: {secretRef: {name: hmac}}}' },
    problem: /spec\.environments\[2\]\.rollback: rollback: pull-request needs a pull-request promotion strategy/,
  },
  {
    name: 'rollback on the first environment without spec.source',
    shape: { dev: ['rollback: pull-request'] },
    problem:
      /spec\.environments\[0\]\.rollback: the first environment can be rolled back only with spec\.source: without a source nothing is promoted into it/,
  },
  {
    name: 'rollbackAfter without rollback',
    shape: { prod: ['rollbackAfter: 10m'] },
    problem: /spec\.environments\[2\]\.rollbackAfter: is the grace period of a rollback: set rollback: pull-request/,
  },
  {
    name: 'rollbackAfter under a minute',
    shape: { prod: ['rollback: pull-request', 'rollbackAfter: 30s'] },
    problem: /spec\.environments\[2\]\.rollbackAfter: must be at least 1m/,
  },
  {
    name: 'rollbackAfter over a day',
    shape: { prod: ['rollback: pull-request', 'rollbackAfter: 24h1s'] },
    problem: /spec\.environments\[2\]\.rollbackAfter: must be at most 24h/,
  },
  {
    name: 'rollbackAfter in days',
    shape: { prod: ['rollback: pull-request', 'rollbackAfter: 1d'] },
    problem: /spec\.environments\[2\]\.rollbackAfter: must be a duration in whole hours, minutes and seconds/,
  },
  {
    name: 'rollbackAfter as a number',
    shape: { prod: ['rollback: pull-request', 'rollbackAfter: 600'] },
    problem: /spec\.environments\[2\]\.rollbackAfter: must be a string \(found a number\)/,
  },
];

describe('environment gates that are refused, naming the field', () => {
  for (const { name, shape, problem } of REFUSED) {
    it(name, () => {
      const problems = problemsOf(load(shape));
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0] ?? '', problem);
    });
  }

  it('the problem is located in the file, at the field', () => {
    const problems = problemsOf(load({ prod: ['rollback: pull-request', 'rollbackAfter: 30s'] }));
    assert.match(
      problems[0] ?? '',
      /^config\.yaml:14:7: Pipeline flux-system\/podinfo: spec\.environments\[2\]\.rollbackAfter: /,
    );
  });

  it('rollbackAfter at its bounds, 1m and 24h, is accepted', () => {
    for (const after of ['1m', '24h']) {
      const configuration = configurationOf(load({ prod: ['rollback: pull-request', `rollbackAfter: ${after}`] }));
      assert.equal(configuration.pipelines[0]?.environments[2]?.rollback?.after, after);
    }
  });
});

describe('docs/freeze.md', () => {
  it('its example Pipelines load, their windows carried as written', async () => {
    const markdown = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'freeze.md'), 'utf8');
    const blocks = [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
    assert.equal(blocks.length, 2);
    const freezes = blocks
      .map((block) => configurationOf(loadConfigurationText(block, 'freeze.md', known)))
      .map((configuration) => configuration.pipelines[0]?.environments[1]?.freeze?.map((window) => window.from));
    assert.deepEqual(freezes, [['Fri 16:00'], ['18:00', 'Fri 18:00', 'Tue 14:00']]);
  });
});
