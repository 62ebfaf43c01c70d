// `spec.environments[].verification` (docs/verification.md, "The Pipeline fields"): the worked example loads and is
// resolved as written, each malformed form is refused with a message naming its field, misspelt keys get a
// suggestion, and the Secrets a check sends must exist and hold credentials.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';
import { secretUses } from '../../lib/secrets/uses.js';

const known: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'staging' },
    ],
    secrets: [{ namespace: 'flux-system', name: 'smoke-token', keys: ['token'] }],
  },
};

/** dev → staging, with `verification` (YAML, indented under the key) on staging, the second environment. */
const pipelineWith = (verification: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: staging
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: staging}}]
      verification:
${verification
  .trim()
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;

const WORKED_EXAMPLE = `
for: 10m
onInconclusive: wait
checks:
  - name: errors
    cloudwatchAlarms: {alarmNames: [podinfo-5xx, podinfo-p99], region: eu-west-1}
  - name: error-rate
    prometheus:
      url: https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234
      query: sum(rate(http_requests_total{app="podinfo",code=~"5.."}[5m])) / sum(rate(http_requests_total{app="podinfo"}[5m]))
      below: 0.01
      auth: {sigv4: {region: eu-west-1}}
  - name: smoke
    http: {url: https://staging.acme.example/healthz, expectStatus: 200, bodyContains: '"status":"ok"', secretRef: {name: smoke-token}}
  - name: canary
    flaggerCanary: {name: podinfo, namespace: apps}
`;

function load(verification: string, options: LoadOptions = known) {
  return loadConfigurationText(pipelineWith(verification), 'config.yaml', options);
}

function problemsOf(verification: string, options: LoadOptions = known): string[] {
  const result = load(verification, options);
  return result.ok ? [] : result.problems.map(formatProblem);
}

/** The worked example with one check replaced by `check` (YAML of one list item, without the dash). */
const withCheck = (check: string) => `
checks:
  - name: probe
${check
  .trim()
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
`;

describe('spec.environments[].verification', () => {
  it('loads the worked example, resolved with each check as its one kind', () => {
    const result = load(WORKED_EXAMPLE);
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.configuration.pipelines[0]?.environments[1]?.verification, {
      for: '10m',
      onInconclusive: 'wait',
      checks: [
        { name: 'errors', cloudwatchAlarms: { alarmNames: ['podinfo-5xx', 'podinfo-p99'], region: 'eu-west-1' } },
        {
          name: 'error-rate',
          prometheus: {
            url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1234',
            query:
              'sum(rate(http_requests_total{app="podinfo",code=~"5.."}[5m])) / sum(rate(http_requests_total{app="podinfo"}[5m]))',
            below: 0.01,
            auth: { sigv4: { region: 'eu-west-1' } },
          },
        },
        {
          name: 'smoke',
          http: {
            url: 'https://staging.acme.example/healthz',
            expectStatus: 200,
            bodyContains: '"status":"ok"',
            secretRef: { name: 'smoke-token' },
          },
        },
        { name: 'canary', flaggerCanary: { name: 'podinfo', namespace: 'apps' } },
      ],
    });
  });

  it('defaults onInconclusive to wait, and leaves for out when it is not written', () => {
    const result = load(withCheck('flaggerCanary: {name: podinfo, namespace: apps}'));
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.configuration.pipelines[0]?.environments[1]?.verification, {
      onInconclusive: 'wait',
      checks: [{ name: 'probe', flaggerCanary: { name: 'podinfo', namespace: 'apps' } }],
    });
  });

  it('is optional: an environment without it has no verification (a Weave Pipeline loads unchanged)', () => {
    const result = loadConfigurationText(
      pipelineWith('checks: []').replace(/ {6}verification:\n.*\n/, ''),
      'config.yaml',
      known,
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.equal('verification' in (result.configuration.pipelines[0]?.environments[1] ?? {}), false);
  });

  it('lets an http or prometheus check call plain http on a loopback address only when it says so', () => {
    const http = withCheck('http: {url: "http://127.0.0.1:9090/healthz", allowInsecureLoopback: true}');
    assert.deepEqual(problemsOf(http), []);
    const prometheus = withCheck(
      'prometheus: {url: "http://localhost:9090", query: up, above: 0, allowInsecureLoopback: true}',
    );
    assert.deepEqual(problemsOf(prometheus), []);
  });

  const refused: { what: string; verification: string; problem: RegExp }[] = [
    {
      what: 'no checks',
      verification: 'checks: []',
      problem: /spec\.environments\[1\]\.verification\.checks: must hold at least one check/,
    },
    {
      what: 'a for that is not a duration',
      verification: `for: 1d\n${withCheck('flaggerCanary: {name: podinfo, namespace: apps}')}`,
      problem: /spec\.environments\[1\]\.verification\.for: must be a duration in whole hours, minutes and seconds/,
    },
    {
      what: 'a for over a week',
      verification: `for: 169h\n${withCheck('flaggerCanary: {name: podinfo, namespace: apps}')}`,
      problem: /spec\.environments\[1\]\.verification\.for: must be at most 168h \(7 days\)/,
    },
    {
      what: 'an onInconclusive other than wait or fail',
      verification: `onInconclusive: pass\n${withCheck('flaggerCanary: {name: podinfo, namespace: apps}')}`,
      problem: /spec\.environments\[1\]\.verification\.onInconclusive: must be wait or fail/,
    },
    {
      what: 'a check without a kind',
      verification: 'checks: [{name: probe}]',
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]: give one kind of check: cloudwatchAlarms, prometheus, http or flaggerCanary/,
    },
    {
      what: 'a check of two kinds',
      verification: withCheck(
        'flaggerCanary: {name: podinfo, namespace: apps}\nhttp: {url: "https://staging.acme.example/"}',
      ),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]: give exactly one kind of check \(found http and flaggerCanary\)/,
    },
    {
      what: 'a check name that is not a DNS label',
      verification: 'checks: [{name: Error_Rate, flaggerCanary: {name: podinfo, namespace: apps}}]',
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.name: must be a lowercase RFC 1123 label/,
    },
    {
      what: 'two checks of one name',
      verification: `checks:
  - {name: probe, flaggerCanary: {name: podinfo, namespace: apps}}
  - {name: probe, flaggerCanary: {name: backend, namespace: apps}}`,
      problem:
        /spec\.environments\[1\]\.verification\.checks\[1\]\.name: duplicate check name "probe" \(also checks\[0\]\)/,
    },
    {
      what: 'cloudwatchAlarms without alarm names',
      verification: withCheck('cloudwatchAlarms: {alarmNames: []}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.cloudwatchAlarms\.alarmNames: must name at least one alarm/,
    },
    {
      what: 'cloudwatchAlarms in a region that is not one',
      verification: withCheck('cloudwatchAlarms: {alarmNames: [podinfo-5xx], region: Ireland}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.cloudwatchAlarms\.region: must be an AWS region/,
    },
    {
      what: 'prometheus with both below and above',
      verification: withCheck('prometheus: {url: "https://prom.acme.example", query: up, below: 1, above: 0}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.prometheus: give exactly one of below or above/,
    },
    {
      what: 'prometheus with neither below nor above',
      verification: withCheck('prometheus: {url: "https://prom.acme.example", query: up}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.prometheus: give exactly one of below or above/,
    },
    {
      what: 'prometheus with an empty query',
      verification: withCheck('prometheus: {url: "https://prom.acme.example", query: " ", below: 1}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.prometheus\.query: must not be empty/,
    },
    {
      what: 'prometheus with two ways to authenticate',
      verification: withCheck(
        'prometheus: {url: "https://prom.acme.example", query: up, below: 1, auth: {sigv4: {region: eu-west-1}, secretRef: {name: smoke-token}}}',
      ),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.prometheus\.auth: give exactly one of sigv4 or secretRef/,
    },
    {
      what: 'a plain http URL',
      verification: withCheck('prometheus: {url: "http://prom.acme.example", query: up, below: 1}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.prometheus\.url: must be https:\/\//,
    },
    {
      what: 'a plain http URL to loopback without allowInsecureLoopback',
      verification: withCheck('http: {url: "http://127.0.0.1:8080/healthz"}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.url: must be https:\/\/ \(for plain http:\/\/ to a loopback address, set allowInsecureLoopback: true\)/,
    },
    {
      what: 'a plain http URL to another host with allowInsecureLoopback',
      verification: withCheck('http: {url: "http://staging.acme.example/healthz", allowInsecureLoopback: true}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.url: must be https:\/\/ \(plain http:\/\/ only to a loopback address\)/,
    },
    {
      what: 'the instance metadata address',
      verification: withCheck('http: {url: "https://169.254.169.254/latest/meta-data/"}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.url: 169\.254\.169\.254 is a link-local address/,
    },
    {
      what: 'credentials in the URL',
      verification: withCheck('http: {url: "https://user:hunter2@staging.acme.example/healthz"}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.url: must not hold a user name or password/,
    },
    {
      what: 'an expectStatus that is not an HTTP status',
      verification: withCheck('http: {url: "https://staging.acme.example/healthz", expectStatus: 700}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.expectStatus: must be an HTTP status code/,
    },
    {
      what: 'a flaggerCanary without a namespace',
      verification: withCheck('flaggerCanary: {name: podinfo}'),
      problem: /spec\.environments\[1\]\.verification\.checks\[0\]\.flaggerCanary\.namespace: is required/,
    },
    {
      what: 'a misspelt kind',
      verification: withCheck('flagerCanary: {name: podinfo, namespace: apps}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.flagerCanary: unknown field "flagerCanary" \(not part of the Pipeline schema\): did you mean flaggerCanary\?/,
    },
    {
      what: 'a misspelt field of a check',
      verification: withCheck('http: {url: "https://staging.acme.example/healthz", expectedStatus: 200}'),
      problem:
        /spec\.environments\[1\]\.verification\.checks\[0\]\.http\.expectedStatus: unknown field "expectedStatus" \(not part of the Pipeline schema\): did you mean expectStatus\?/,
    },
  ];
  for (const { what, verification, problem } of refused) {
    it(`refuses ${what}, naming the field`, () => {
      const problems = problemsOf(verification);
      assert.ok(
        problems.some((line) => problem.test(line)),
        `expected ${String(problem)} among:\n${problems.join('\n')}`,
      );
    });
  }

  it('never quotes the password of a URL that holds one', () => {
    const problems = problemsOf(withCheck('http: {url: "https://user:hunter2@staging.acme.example/healthz"}'));
    assert.ok(problems.length > 0);
    assert.ok(
      problems.every((line) => !line.includes('hunter2')),
      problems.join('\n'),
    );
  });

  describe('the Secrets a check sends', () => {
    it('must exist: a missing one is named, with the check it is for', () => {
      const problems = problemsOf(
        withCheck('http: {url: "https://staging.acme.example/healthz", secretRef: {name: smoke-tokn}}'),
      );
      const expected =
        'Pipeline flux-system/podinfo: spec.environments[1].verification.checks[0].http.secretRef.name: ' +
        'Secret flux-system/smoke-tokn not found (did you mean flux-system/smoke-token?) ' +
        '(it holds the credentials of check probe)';
      assert.ok(
        problems.some((line) => /^config\.yaml:\d+:\d+: /.test(line) && line.endsWith(expected)),
        problems.join('\n'),
      );
    });

    it('must hold a token, or a username and password', () => {
      const options: LoadOptions = {
        known: { ...known.known, secrets: [{ namespace: 'flux-system', name: 'prom-basic', keys: ['username'] }] },
      };
      const problems = problemsOf(
        withCheck(
          'prometheus: {url: "https://prom.acme.example", query: up, below: 1, auth: {secretRef: {name: prom-basic}}}',
        ),
        options,
      );
      assert.ok(
        problems.some((line) =>
          line.includes(
            'spec.environments[1].verification.checks[0].prometheus.auth.secretRef.name: Secret flux-system/prom-basic ' +
              'has neither a non-empty "token" key nor non-empty "username" and "password" keys',
          ),
        ),
        problems.join('\n'),
      );
    });

    it('a Secret given in the same files counts, and a valid reference loads', () => {
      const text = `${pipelineWith(
        withCheck('http: {url: "https://staging.acme.example/healthz", secretRef: {name: smoke-basic}}'),
      )}---
apiVersion: v1
kind: Secret
metadata: {name: smoke-basic, namespace: flux-system}
stringData: {username: probe, password: not-a-real-one}
`;
      const result = loadConfigurationText(text, 'config.yaml', known);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    });

    it('are marked check-credentials where Secrets are stored', () => {
      const document = {
        spec: {
          environments: [
            {
              verification: {
                checks: [
                  { name: 'smoke', http: { url: 'https://x.example', secretRef: { name: 'smoke-token' } } },
                  { name: 'rate', prometheus: { auth: { secretRef: { name: 'prom-token' } } } },
                ],
              },
            },
          ],
        },
      };
      assert.deepEqual(
        secretUses('Pipeline', { namespace: 'flux-system', name: 'podinfo' }, document).map((use) => [
          use.secret.name,
          use.purpose,
        ]),
        [
          ['smoke-token', 'check-credentials'],
          ['prom-token', 'check-credentials'],
        ],
      );
    });
  });
});
