// pipelinectl as a user runs it: child processes on a temporary data directory, no serve running (so each command
// opens the data directory itself). Between runs the test seeds what a verifier would have recorded, through the
// store, with the data directory opened in this process and closed again before the next run (one process at a time
// may hold it).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import type { ExplainJson } from '../../lib/cli/operations/explain.js';
import {
  deriveClusterKey,
  EVENT_SIGNATURE_ALGORITHMS,
  signatureHeader,
  verifySignature,
} from '../../lib/signing/hmac.js';
import { loadOrCreateMasterKeys, readSecrets } from '../../lib/local/data-dir.js';
import { writeFiles } from '../support/temp-files.js';
import { BAD, CLUSTERS, PIPELINE, pipeline, SECRETS, seed } from './fixtures.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';

describe('pipelinectl', { concurrency: true }, () => {
  describe('on a local data directory, one command after the other', { concurrency: false }, () => {
    let root = '';
    let dataDir = '';
    const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
    const path = (file: string) => join(root, file);

    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'pipelinectl-test-'));
      dataDir = path('data');
      await writeFiles(root, {
        'bad.yaml': BAD,
        'good/clusters.yaml': CLUSTERS,
        'good/secrets.yaml': SECRETS,
        'good/pipeline.yaml': pipeline('apps'),
        'changed.yaml': pipeline('apps-prod'),
      });
    });
    after(() => rm(root, { recursive: true, force: true }));

    it('rejects a configuration with errors: every problem printed, exit 1, nothing stored', async () => {
      const run = await cli('apply', '-f', path('bad.yaml'));
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      const problems = lines(run.stderr).filter((line) => line.startsWith(`${path('bad.yaml')}:`));
      assert.equal(problems.length, 3, run.stderr);
      assert.match(run.stderr, /clusterRef\.name: GitopsCluster flux-system\/missing not found/);
      assert.match(run.stderr, /spec\.environments\[1\]\.cluster: unknown field "cluster"/);
      assert.match(run.stderr, /secretRef\.name: Secret flux-system\/webhook-hmac not found/);
      assert.equal(lines(run.stderr).at(-1), 'error: 3 problems in the configuration: nothing was applied');

      const pipelines = await cli('get', 'pipelines');
      assert.equal(pipelines.code, 0);
      assert.equal(pipelines.stdout, '');
      assert.match(pipelines.stderr, /no pipelines stored/);
    });

    it('applies a good configuration: one line per object, created, and the Secrets marked by use', async () => {
      const run = await cli('apply', '-f', path('good'));
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(lines(run.stdout), [
        'secret flux-system/dev-kubeconfig configured',
        'secret flux-system/webhook-hmac configured',
        'secret flux-system/github configured',
        'gitopscluster flux-system/dev created',
        'gitopscluster flux-system/prod created',
        'gitopscluster flux-system/spare created',
        'pipeline flux-system/podinfo created',
      ]);
      assert.match(run.stderr, /serve is not running/);
      assert.doesNotMatch(run.stdout + run.stderr, /not-so-secret|ghp_test/);
      const secrets = await readSecrets(dataDir);
      assert.deepEqual(secrets['flux-system/webhook-hmac']?.purposes, ['webhook-hmac']);
      assert.deepEqual(secrets['flux-system/github']?.purposes, ['git-credentials']);
      assert.deepEqual(secrets['flux-system/dev-kubeconfig']?.purposes, ['kubeconfig']);
      assert.equal(secrets['flux-system/github']?.values.token, 'ghp_test');
    });

    it('applies the same configuration again, from standard input: unchanged', async () => {
      const input = [CLUSTERS, SECRETS, pipeline('apps')].join('\n---\n');
      const run = await runCli(['apply', '-f', '-', '--data-dir', dataDir], { input });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        lines(run.stdout).filter((line) => !line.startsWith('secret ')),
        [
          'gitopscluster flux-system/dev unchanged',
          'gitopscluster flux-system/prod unchanged',
          'gitopscluster flux-system/spare unchanged',
          'pipeline flux-system/podinfo unchanged',
        ],
      );
    });

    it('--dry-run prints what would change and writes nothing (get -o json still shows what was applied)', async () => {
      const dry = await cli('apply', '-f', path('changed.yaml'), '--dry-run');
      assert.equal(dry.code, 0, dry.stderr);
      assert.deepEqual(lines(dry.stdout), ['pipeline flux-system/podinfo configured (dry run)']);

      const get = await cli('get', 'pipelines', '-o', 'json');
      assert.equal(get.code, 0, get.stderr);
      const list = JSON.parse(get.stdout) as {
        kind: string;
        items: {
          metadata: { name: string };
          spec: { environments: { name: string; targets: { namespace: string }[] }[] };
        }[];
      };
      assert.equal(list.kind, 'List');
      assert.equal(list.items.length, 1);
      assert.equal(list.items[0]?.metadata.name, 'podinfo');
      assert.deepEqual(
        list.items[0]?.spec.environments.map((env) => env.name),
        ['dev', 'staging', 'prod'],
      );
      assert.equal(list.items[0]?.spec.environments[2]?.targets[0]?.namespace, 'apps', 'the dry run changed nothing');
    });
  });

  describe(
    'on a second data directory, applied and seeded as a verifier would have left it',
    { concurrency: false },
    () => {
      let root = '';
      let dataDir = '';
      const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

      before(async () => {
        root = await mkdtemp(join(tmpdir(), 'pipelinectl-test-'));
        dataDir = join(root, 'data');
        await writeFiles(root, {
          'config/clusters.yaml': CLUSTERS,
          'config/secrets.yaml': SECRETS,
          'config/pipeline.yaml': pipeline('apps'),
        });
        const backend = await openLocalBackend(dataDir);
        try {
          const applied = await applyConfiguration(backend, { source: { paths: [join(root, 'config')] } });
          assert.ok(applied.ok);
          await seed(backend.store);
        } finally {
          await backend.close();
        }
      });
      after(() => rm(root, { recursive: true, force: true }));

      it('status: a table that fits 120 columns, and JSON in the documented shape', async () => {
        const table = await cli('status');
        assert.equal(table.code, 0, table.stderr);
        const out = lines(table.stdout);
        // The approve command is printed whole, to be pasted (rough-edges.test.ts pastes it): only it may run past.
        const approve = `pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --data-dir ${dataDir}`;
        assert.ok(
          out.every((line) => line.length <= 120 || line.endsWith(`(${approve})`)),
          table.stdout,
        );
        assert.match(out[0] ?? '', /^flux-system\/podinfo +HelmRelease podinfo +candidate 6\.9\.2$/);
        assert.match(out[1] ?? '', /^ENV +CLUSTER +NAMESPACE +REVISION +PHASE +LAST SEEN +STATE$/);
        assert.match(table.stdout, /^dev +flux-system\/dev +apps +6\.9\.2 +Ready +\d+s ago +source$/m);
        assert.match(
          table.stdout,
          /^staging +flux-system\/prod +apps-staging +6\.9\.1 +Ready +\d+s ago +waits for approval$/m,
        );
        assert.match(table.stdout, /^prod +flux-system\/prod +apps +6\.9\.1 +Ready .* waits for staging$/m);
        assert.match(table.stdout, /^ +waiting for approval of 6\.9\.2/m);
        assert.ok(
          out.some(
            (line) => /^ +approval: 6\.9\.2 requested \d+s ago, waiting \(/.test(line) && line.endsWith(`(${approve})`),
          ),
          table.stdout,
        );
        assert.match(
          table.stdout,
          /promotion: 6\.9\.1 succeeded \(attempt 1\) 1h ago: https:\/\/github\.com\/acme\/fleet\/pull\/7/,
        );

        const json = await cli('status', 'flux-system/podinfo', '-o', 'json');
        assert.equal(json.code, 0, json.stderr);
        const status = JSON.parse(json.stdout) as StatusJson;
        assert.equal(status.pipelines.length, 1);
        const [podinfo] = status.pipelines;
        assert.equal(podinfo?.candidate, '6.9.2');
        assert.deepEqual(podinfo?.app, {
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
          kind: 'HelmRelease',
          name: 'podinfo',
        });
        const [dev, staging, prod] = podinfo?.environments ?? [];
        assert.equal(dev?.state, 'source');
        assert.equal(dev?.reason, 'CandidateFound');
        assert.deepEqual(
          { ...dev?.targets[0], observedAt: undefined, changedAt: undefined },
          {
            cluster: 'flux-system/dev',
            namespace: 'apps',
            revision: '6.9.2',
            phase: 'Ready',
            reason: 'Deployed',
            message: 'deployed 6.9.2 (UpgradeSucceeded)',
            observedAt: undefined,
            changedAt: undefined,
          },
        );
        assert.ok(Date.parse(dev?.targets[0]?.observedAt ?? '') > Date.now() - 60_000);
        assert.equal(staging?.manual, true);
        assert.equal(staging?.strategy, 'pull-request');
        assert.equal(staging?.state, 'waiting-approval');
        assert.equal(staging?.stateText, 'waits for approval');
        assert.equal(staging?.reason, 'AwaitingApproval');
        assert.match(staging?.message ?? '', /^waiting for approval of 6\.9\.2/);
        assert.equal(staging?.approval?.revision, '6.9.2');
        assert.equal(staging?.approval?.waiting, true);
        assert.equal(staging?.approval?.approvedBy, null);
        assert.equal(staging?.promotions[0]?.state, 'succeeded');
        assert.equal(staging?.promotions[0]?.result, 'https://github.com/acme/fleet/pull/7');
        assert.equal(prod?.state, 'not-reached');
        assert.equal(prod?.reason, 'StoppedEarlier');
        assert.equal(prod?.waitsFor, 'staging');
        assert.equal(prod?.stateText, 'waits for staging');
        assert.equal(prod?.approval, null);
        assert.deepEqual(prod?.promotions, []);
      });

      it('explain: the candidate, each environment with its explanation and the statuses behind it', async () => {
        const all = await cli('explain', 'flux-system/podinfo');
        assert.equal(all.code, 0, all.stderr);
        assert.match(all.stdout, /^Candidate: 6\.9\.2$/m);
        assert.match(
          all.stdout,
          /^staging: waits for approval \(waiting-approval\/AwaitingApproval, manual, pull-request\): waiting for approval of 6\.9\.2/m,
        );
        assert.match(
          all.stdout,
          /^ {2}target flux-system\/prod apps-staging: 6\.9\.1, Ready\/Deployed, seen \d+s ago: deployed 6\.9\.1/m,
        );
        assert.match(
          all.stdout,
          /^prod: waits for staging \(not-reached\/StoppedEarlier, notification\): not reached: stopped at staging/m,
        );
        // A person is what staging waits for: Next says so, with the commands to paste into the same shell.
        const revision = ['flux-system/podinfo', 'staging', '--revision', '6.9.2'];
        const approve = ['pipelinectl', 'approve', ...revision, '--data-dir', dataDir].join(' ');
        const reject = ['pipelinectl', 'reject', ...revision, '--reason', "'…'", '--data-dir', dataDir].join(' ');
        assert.deepEqual(lines(all.stdout).slice(-3), [
          'Next: staging waits for a person to approve 6.9.2, or to reject it.',
          `  ${approve}`,
          `  ${reject}`,
        ]);

        const one = await cli('explain', 'flux-system/podinfo', 'dev');
        assert.equal(one.code, 0, one.stderr);
        assert.match(one.stdout, /^dev: source \(source\/CandidateFound, notification\): candidate 6\.9\.2/m);
        assert.doesNotMatch(one.stdout, /^staging/m);
        assert.equal(
          lines(one.stdout).at(-1),
          'Next: nothing to do until a target, an approval or a promotion changes.',
        );

        const json = await cli('explain', 'flux-system/podinfo', 'staging', '-o', 'json');
        assert.equal(json.code, 0, json.stderr);
        const explained = JSON.parse(json.stdout) as ExplainJson;
        assert.equal(explained.candidate, '6.9.2');
        assert.deepEqual(
          explained.environments.map((env) => [env.name, env.state, env.reason]),
          [['staging', 'waiting-approval', 'AwaitingApproval']],
        );
        assert.deepEqual(
          explained.environments[0]?.targets.map((target) => [target.phase, target.reason, target.revision]),
          [['Ready', 'Deployed', '6.9.1']],
        );
        assert.deepEqual(explained.next, [], 'the request exists already: nothing for the verifier to do');
        assert.deepEqual(explained.waitingForApproval, [
          {
            env: 'staging',
            revision: '6.9.2',
            approvals: 0,
            required: 1,
            approveCommand: `pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --data-dir ${dataDir}`,
            rejectCommand: `pipelinectl reject flux-system/podinfo staging --revision 6.9.2 --reason '…' --data-dir ${dataDir}`,
          },
        ]);
      });

      it('approve: the waiting revision is approved under the local identity; nothing waiting is exit 1', async () => {
        const run = await cli('approve', 'flux-system/podinfo', 'staging');
        const identity = `local:${userInfo().username}`;
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, `approved flux-system/podinfo staging 6.9.2 as ${identity}\n`);

        const none = await cli('approve', 'flux-system/podinfo', 'prod');
        assert.equal(none.code, 1);
        assert.equal(none.stderr, 'error: nothing waits for approval in flux-system/podinfo prod\n');

        const backend = await openLocalBackend(dataDir);
        try {
          const marker = await backend.store.getApproval(PIPELINE, 'staging');
          assert.equal(marker?.revision, '6.9.2');
          assert.equal(marker?.approvedBy, identity);
          const audit = await backend.store.listAudit(PIPELINE);
          assert.equal(audit.items[0]?.type, 'approved');
          assert.equal(audit.items[0]?.actor, identity);
        } finally {
          await backend.close();
        }
      });

      it("flux-config: a Secret whose token verifies the cluster's events, the Provider address, the Alert namespaces", async () => {
        const run = await cli('flux-config', '--cluster', 'flux-system/prod', '--url', 'http://127.0.0.1:8080/');
        assert.equal(run.code, 0, run.stderr);
        const documents = parseAllDocuments(run.stdout).map((document) => {
          assert.deepEqual(document.errors, []);
          return document.toJS() as {
            kind: string;
            metadata: { name: string; namespace: string };
            [key: string]: unknown;
          };
        });
        assert.deepEqual(
          documents.map((d) => d.kind),
          ['Secret', 'Provider', 'Alert'],
        );
        const [secret, provider, alert] = documents as unknown as [
          { stringData: { token: string } },
          { spec: { type: string; address: string; secretRef: { name: string } } },
          { spec: { eventSeverity: string; eventSources: { kind: string; name: string; namespace: string }[] } },
        ];
        const cluster = { namespace: 'flux-system', name: 'prod' };
        const event = Buffer.from('{"involvedObject":{"kind":"HelmRelease","name":"podinfo","namespace":"apps"}}');
        const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir, {})).current, cluster);
        assert.ok(
          verifySignature(signatureHeader(event, key), event, secret.stringData.token, EVENT_SIGNATURE_ALGORITHMS),
        );
        assert.equal(provider.spec.type, 'generic-hmac');
        assert.equal(provider.spec.address, 'http://127.0.0.1:8080/v1/events/flux-system/prod');
        assert.equal(provider.spec.secretRef.name, documents[0]?.metadata.name);
        assert.equal(alert.spec.eventSeverity, 'info');
        assert.deepEqual(alert.spec.eventSources, [
          { kind: 'HelmRelease', name: '*', namespace: 'apps' },
          { kind: 'Kustomization', name: '*', namespace: 'apps' },
          { kind: 'HelmRelease', name: '*', namespace: 'apps-staging' },
          { kind: 'Kustomization', name: '*', namespace: 'apps-staging' },
        ]);

        const spare = await cli('flux-config', '--cluster', 'flux-system/spare', '--url', 'http://127.0.0.1:8080');
        assert.equal(spare.code, 0, spare.stderr);
        const kinds = parseAllDocuments(spare.stdout).map((document) => {
          assert.deepEqual(document.errors, []);
          return (document.toJS() as { kind: string }).kind;
        });
        assert.deepEqual(kinds, ['Secret', 'Provider']);
        assert.match(spare.stdout, /# No Alert yet: no stored pipeline has a target on flux-system\/spare/);

        const unknown = await cli('flux-config', '--cluster', 'flux-system/nope', '--url', 'http://127.0.0.1:8080');
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /^error: GitopsCluster flux-system\/nope is not registered/);
      });
    },
  );

  describe('help and mistakes', { concurrency: 1 }, () => {
    const commands = [
      ['apply'],
      ['validate'],
      ['get'],
      ['status'],
      ['approve'],
      ['retry'],
      ['explain'],
      ['flux-config'],
      ['dlq'],
      ['dlq', 'list'],
      ['dlq', 'redrive'],
    ];
    for (const command of commands) {
      it(`${command.join(' ')} --help: a description and an example, exit 0`, async () => {
        const run = await runCli([...command, '--help']);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, new RegExp(`^Usage: pipelinectl ${command.join(' ')} `));
        assert.match(run.stdout, /\nExamples:\n {2}pipelinectl /);
      });
    }

    it('an unknown command, an unknown flag, an AWS flag without --aws: one short line, non-zero', async () => {
      const command = await runCli(['promote']);
      const flag = await runCli(['status', '--colour']);
      const aws = await runCli(['status', '--table', 'pipelines']);
      const dlq = await runCli(['dlq', 'list']);
      assert.notEqual(command.code, 0);
      assert.match(command.stderr, /^error: unknown command 'promote'/);
      assert.notEqual(flag.code, 0);
      assert.match(flag.stderr, /^error: unknown option '--colour'/);
      assert.equal(aws.code, 1);
      assert.equal(
        aws.stderr,
        'error: --table acts on a deployed stack: add --aws (without it the local data directory is used)\n',
      );
      assert.equal(dlq.code, 1);
      assert.match(
        dlq.stderr,
        /^error: the local mode has no dead-letter queue to read: .*keeps dead letters in memory/,
      );
    });
  });
});
