// The CLI's rough edges a user finds by trying it, each as that user meets it: a --data-dir that holds
// no store is refused in one line that names it, and nothing is made there; the approve command `status` prints,
// pasted into a shell, approves where status looked (a data directory whose name needs quoting, a deployed stack);
// approve and retry answer in JSON with -o json.
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { startFauxqs } from 'fauxqs';
import { applyConfiguration } from '../../lib/apply/apply.js';
import type { ApproveJson } from '../../lib/cli/operations/approve.js';
import type { RetryJson } from '../../lib/cli/operations/retry.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { addBackendOptions, backendFlags } from '../../lib/cli/options.js';
import type { Store } from '../../lib/store/port.js';
import { mapLimit } from '../../lib/util/map-limit.js';
import { startAwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite } from '../support/dynalite.js';
import { tempFiles } from '../support/temp-files.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS, seed } from './fixtures.js';
import { lines, shellWords } from './helpers.js';
import { runCli, type CliRun } from '../support/pipelinectl.js';

const CONFIGURATION = { 'config/all.yaml': [CLUSTERS, SECRETS, pipeline('apps')].join('\n---\n') };
const IDENTITY = `local:${userInfo().username}`;

/** Every command that reads or acts on what a data directory stores, with the arguments it needs. */
const READ_AND_ACT_COMMANDS: readonly (readonly string[])[] = [
  ['status'],
  ['get', 'pipelines'],
  ['explain', 'flux-system/podinfo'],
  ['approve', 'flux-system/podinfo', 'staging'],
  ['retry', 'flux-system/podinfo', 'prod'],
  ['history'],
  ['metrics'],
  ['check'],
  ['delete', 'pipeline', 'flux-system/podinfo'],
  ['dashboard', '--port', '0'],
  ['flux-config', '--cluster', 'flux-system/dev', '--url', 'http://127.0.0.1:8080'],
  ['backup', '--to', 'backup.jsonl'],
];

/** Each command on `dataDir`, a few at a time (each is a process of its own). */
function runEach(
  commands: readonly (readonly string[])[],
  dataDir: string,
  root: string,
): Promise<{ command: string; run: CliRun }[]> {
  return mapLimit(commands, 4, async (words) => {
    const args = words.map((word) => (word === 'backup.jsonl' ? join(root, word) : word));
    return { command: words[0] ?? '', run: await runCli([...args, '--data-dir', dataDir]) };
  });
}

/** The refusal, as one line: what was found, then the ways on, with the directory quoted for a shell. */
function refusal(found: string, quoted: string): string {
  return (
    `error: ${found}: pass the --data-dir that pipelinectl serve uses (or --aws for a deployed stack), or make a ` +
    `store there first with pipelinectl serve --config DIR --data-dir ${quoted} or pipelinectl apply -f PATH ` +
    `--data-dir ${quoted}\n`
  );
}

/** A data directory applied and seeded as a verifier would have left it: 6.9.2 waits for approval in staging. */
async function seededDataDir(dataDir: string, root: string): Promise<void> {
  const backend = await openLocalBackend(dataDir);
  try {
    const applied = await applyConfiguration(backend, { source: { paths: [join(root, 'config')] } });
    assert.ok(applied.ok, JSON.stringify(applied));
    await seed(backend.store);
  } finally {
    await backend.close();
  }
}

/** The approve command in status's line for the waiting approval, as printed. */
function approveHint(stdout: string): string {
  const line = stdout.split('\n').find((text) => /^ +approval: 6\.9\.2 requested .*, waiting \(/.test(text));
  const command = /, waiting \((.*)\)$/.exec(line ?? '')?.[1];
  assert.ok(command, `no approve command in:\n${stdout}`);
  return command;
}

/** What a verifier leaves after the promotion of 6.9.2 to prod failed for good (on top of `seed`, approved). */
async function failedForGood(store: Store): Promise<void> {
  const now = new Date();
  assert.equal(await store.approve(PIPELINE, 'staging', '6.9.2', IDENTITY, now), 'approved');
  await store.recordTargetStatus(
    {
      cluster: { namespace: 'flux-system', name: 'prod' },
      kind: 'HelmRelease',
      namespace: 'apps-staging',
      name: 'podinfo',
    },
    { revision: '6.9.2', phase: 'Ready', reason: 'Deployed', message: 'deployed 6.9.2' },
    now,
  );
  await store.createPromotion(PIPELINE, 'prod', '6.9.2', now);
  const claimed = await store.claimPromotion(PIPELINE, 'prod', '6.9.2', 'verifier', 60_000, now);
  assert.ok(claimed);
  assert.ok(await store.failPromotion(claimed, 'Bad credentials', undefined, now));
}

// The suites run side by side: each test is its own directories and processes.
describe('pipelinectl, as a user first tries it', { concurrency: true }, () => {
  describe('a --data-dir that holds no store', { concurrency: true }, () => {
    it('absent: every command that reads or acts refuses it in one line naming it, and nothing is made', async (t) => {
      const root = await tempFiles(t, {});
      const dataDir = join(root, 'data typo');
      const runs = await runEach(READ_AND_ACT_COMMANDS, dataDir, root);
      for (const { command, run } of runs) {
        assert.equal(run.code, 1, `${command}: ${run.stderr}`);
        assert.equal(run.stdout, '', command);
        assert.equal(run.stderr, refusal(`the data directory ${dataDir} does not exist`, `'${dataDir}'`), command);
      }
      assert.deepEqual(await readdir(root), [], 'neither the data directory nor a backup was made');
    });

    it('empty (or holding other files): refused the same way, and left as it was', async (t) => {
      const root = await tempFiles(t, { 'data/notes.txt': 'not a store\n', 'other/.keep': '' });
      const dataDir = join(root, 'data');
      // Those that would write most: a store, a master key (flux-config), a server (dashboard), a file (backup).
      const commands = READ_AND_ACT_COMMANDS.filter(([name]) =>
        ['status', 'flux-config', 'dashboard', 'backup'].includes(name ?? ''),
      );
      const runs = await runEach(commands, dataDir, root);
      assert.equal(runs.length, 4);
      const found =
        `the data directory ${dataDir} holds no pipeline-controller store ` +
        '(no dynamodb/, master-key.json or secrets.json)';
      for (const { command, run } of runs) {
        assert.equal(run.code, 1, `${command}: ${run.stderr}`);
        assert.equal(run.stderr, refusal(found, dataDir), command);
      }
      assert.deepEqual(await readdir(dataDir), ['notes.txt'], 'nothing was added to it');
      assert.deepEqual((await readdir(root)).sort(), ['data', 'other']);

      // An empty dynamodb/ is a first start cut short, not a store: refused too.
      await mkdir(join(root, 'other', 'dynamodb'));
      const status = await runCli(['status', '--data-dir', join(root, 'other')]);
      assert.equal(status.code, 1);
      assert.match(status.stderr, /holds no pipeline-controller store/);
      assert.deepEqual(await readdir(join(root, 'other', 'dynamodb')), []);
    });

    it('a file: refused as not a directory', async (t) => {
      const root = await tempFiles(t, { 'data.yaml': 'kind: List\n' });
      const run = await runCli(['get', 'clusters', '--data-dir', join(root, 'data.yaml')]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `error: the data directory ${join(root, 'data.yaml')} is not a directory: ` +
          'pass the --data-dir that pipelinectl serve uses (or --aws for a deployed stack)\n',
      );
    });

    it('what a lost store leaves (master-key.json alone): the store check says what was lost', async (t) => {
      const root = await tempFiles(t, {});
      const dataDir = join(root, 'data');
      await mkdir(dataDir, { mode: 0o700 });
      await writeFile(join(dataDir, 'master-key.json'), JSON.stringify({ current: 'a'.repeat(64) }), { mode: 0o600 });
      const run = await runCli(['status', '--data-dir', dataDir]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^error: the store .*dynamodb is missing, but .* holds master-key\.json/);
      assert.deepEqual(await readdir(dataDir), ['master-key.json'], 'no new store in place of the lost one');
    });

    it('apply makes the store, and says so on stderr the first time; then the other commands read it', async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, 'new data');
      const first = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stderr.split('\n')[0], `note: ${dataDir} holds no store yet: a new one is made there`);
      assert.ok((await readdir(join(dataDir, 'dynamodb'))).length > 0, 'the store is made');

      const again = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /holds no store/);
      const status = await runCli(['status', '--data-dir', dataDir]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /^flux-system\/podinfo +HelmRelease podinfo/);
    });

    it('apply --dry-run compares with an empty store and makes nothing: no directory, no store, no master key', async (t) => {
      const root = await tempFiles(t, { ...CONFIGURATION, 'data/notes.txt': 'not a store\n' });
      const absent = join(root, 'new data');
      const dry = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', absent, '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.equal(
        dry.stderr.split('\n')[0],
        `note: ${absent} holds no store yet: compared with an empty one, and none is made (dry run)`,
      );
      assert.deepEqual((await readdir(root)).sort(), ['config', 'data'], 'the data directory was not made');

      // An existing directory that holds no store: the same lines, and nothing added to it.
      const existing = join(root, 'data');
      const dryExisting = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', existing, '--dry-run']);
      assert.equal(dryExisting.code, 0, dryExisting.stderr);
      assert.equal(dryExisting.stdout, dry.stdout);
      assert.deepEqual(await readdir(existing), ['notes.txt'], 'no store and no master-key.json was made there');

      // The lines are those the real run then prints, each marked as a dry run.
      const real = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', absent]);
      assert.equal(real.code, 0, real.stderr);
      assert.ok(lines(real.stdout).length > 0);
      assert.deepEqual(
        lines(dry.stdout),
        lines(real.stdout).map((line) => `${line} (dry run)`),
      );
    });

    it('apply --dry-run on a data directory with a store compares with what is stored, and makes no master key', async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, 'data');
      const env = { PIPELINES_HMAC_KEY: 'b'.repeat(64) };
      const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir], { env });
      assert.equal(applied.code, 0, applied.stderr);
      const before = (await readdir(dataDir)).sort();
      assert.ok(!before.includes('master-key.json'), 'the key comes from PIPELINES_HMAC_KEY');

      const dry = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir, '--dry-run'], { env });
      assert.equal(dry.code, 0, dry.stderr);
      assert.doesNotMatch(dry.stderr, /holds no store/);
      assert.ok(lines(dry.stdout).length > 0);
      // A Secret's values are never compared: it is always rewritten. Everything else is read as stored.
      const objects = lines(dry.stdout).filter((line) => !line.startsWith('secret '));
      assert.ok(objects.length > 0);
      for (const line of objects) assert.match(line, / unchanged( \(dry run\))?$/, 'what is stored is read');
      assert.deepEqual((await readdir(dataDir)).sort(), before, 'no master-key.json or other file was added');
    });
  });

  describe('the approve command status prints', { concurrency: true }, () => {
    it("pasted into a shell, approves the revision shown, in status's data directory (quoted)", async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, "team's data");
      await seededDataDir(dataDir, root);

      const status = await runCli(['status', '--data-dir', dataDir]);
      assert.equal(status.code, 0, status.stderr);
      const hint = approveHint(status.stdout);
      assert.equal(
        hint,
        `pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --data-dir '${root}/team'\\''s data'`,
      );
      const explain = await runCli(['explain', 'flux-system/podinfo', 'staging', '--data-dir', dataDir]);
      assert.ok(explain.stdout.includes(`waiting (${hint})`), `explain shows the same command:\n${explain.stdout}`);

      const words = await shellWords(hint);
      assert.deepEqual(words.slice(0, 2), ['pipelinectl', 'approve']);
      assert.equal(words.at(-1), dataDir);
      const approved = await runCli(words.slice(1));
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(approved.stdout, `approved flux-system/podinfo staging 6.9.2 as ${IDENTITY}\n`);

      const after = await runCli(['status', '--data-dir', dataDir]);
      assert.match(after.stdout, /approval: 6\.9\.2 requested .*, approved \d+s ago by local:/);
      assert.doesNotMatch(after.stdout, /pipelinectl approve/);
    });

    it("explain's Next: the reject command, its reason written in, rejects the revision shown where it waits", async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, "team's data");
      await seededDataDir(dataDir, root);

      const explain = await runCli(['explain', 'flux-system/podinfo', '--data-dir', dataDir]);
      assert.equal(explain.code, 0, explain.stderr);
      const next = explain.stdout.split('\n').filter((line) => line !== '');
      assert.equal(next.at(-3), 'Next: staging waits for a person to approve 6.9.2, or to reject it.');
      const quoted = `--data-dir '${root}/team'\\''s data'`;
      assert.equal(next.at(-2), `  pipelinectl approve flux-system/podinfo staging --revision 6.9.2 ${quoted}`);
      const reject = next.at(-1) ?? '';
      assert.equal(reject, `  pipelinectl reject flux-system/podinfo staging --revision 6.9.2 --reason '…' ${quoted}`);

      const words = await shellWords(reject.trim().replace("'…'", "'breaks checkout'"));
      const rejected = await runCli(words.slice(1));
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.equal(rejected.stdout, `rejected flux-system/podinfo staging 6.9.2 as ${IDENTITY}: breaks checkout\n`);

      const after = await runCli(['explain', 'flux-system/podinfo', '--data-dir', dataDir]);
      assert.match(after.stdout, /^staging: rejected \(rejected\/Rejected/m);
      assert.doesNotMatch(after.stdout, /waits for a person/, 'a rejected revision waits for no one');
    });

    it('carries the flags that chose the backend: --data-dir unless the default, --aws and its typed flags', () => {
      const flagsOf = (args: string[], env: Record<string, string> = {}) => {
        const saved = { ...process.env };
        Object.assign(process.env, env);
        try {
          const command = addBackendOptions(new Command('status'))
            .exitOverride()
            .action(() => undefined);
          command.parse(args, { from: 'user' });
          return backendFlags(command);
        } finally {
          for (const name of Object.keys(env)) {
            if (saved[name] === undefined) delete process.env[name];
            else process.env[name] = saved[name];
          }
        }
      };
      assert.deepEqual(flagsOf([]), []);
      assert.deepEqual(flagsOf(['--data-dir', '.data']), [], 'the default is not repeated');
      assert.deepEqual(flagsOf(['--data-dir', '../a b']), ['--data-dir', '../a b'], 'a relative path, as typed');
      assert.deepEqual(
        flagsOf(['--aws', '--region', 'eu-west-1', '--table', 'T', '--queue-url', 'https://q/1'], {
          PIPELINES_STACK: 'FromTheEnvironment',
        }),
        ['--aws', '--table', 'T', '--queue-url', 'https://q/1', '--region', 'eu-west-1'],
        'the AWS flags typed, in the order --help lists them; one from the environment is left to the environment',
      );
    });

    it('on a deployed stack: --aws and the AWS flags typed, pasted back, approve through the stack', async (t) => {
      const region = 'us-east-1';
      const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
      const [dynamo, sqsServer, aws] = await Promise.all([
        startDynalite(),
        startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }),
        startAwsStandIn(),
      ]);
      const sqsEndpoint = `http://127.0.0.1:${sqsServer.port}`;
      const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
      t.after(async () => {
        sqs.destroy();
        await Promise.all([dynamo.stop(), sqsServer.stop(), aws.stop()]);
      });
      const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
      aws.stacks.set('PipelineControllerStack', { TableName: dynamo.tableName, QueueUrl: queueUrl });
      const config = { endpoint: aws.endpoint, region, credentials };
      const backend = await openAwsBackend(
        { stack: 'PipelineControllerStack' },
        {
          dynamodb: dynamo.client,
          sqs,
          secretsManager: new SecretsManagerClient(config),
          cloudFormation: new CloudFormationClient(config),
          sts: new STSClient(config),
        },
      );
      try {
        const root = await tempFiles(t, CONFIGURATION);
        const applied = await applyConfiguration(backend, { source: { paths: [join(root, 'config')] } });
        assert.ok(applied.ok, JSON.stringify(applied));
        await seed(backend.store);
      } finally {
        await backend.close();
      }

      const env = {
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_ENDPOINT_URL_CLOUDFORMATION: aws.endpoint,
        AWS_ENDPOINT_URL_STS: aws.endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_ENDPOINT_URL_SQS: sqsEndpoint,
        // From the environment, so not repeated: the same shell gives it to the pasted command.
        PIPELINES_SECRETS_PREFIX: 'pipeline-controller/',
      };
      const status = await runCli(['status', '--aws', '--stack', 'PipelineControllerStack', '--region', region], {
        env,
      });
      assert.equal(status.code, 0, status.stderr);
      const hint = approveHint(status.stdout);
      assert.equal(
        hint,
        'pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --aws --stack PipelineControllerStack ' +
          `--region ${region}`,
      );
      const approved = await runCli((await shellWords(hint)).slice(1), { env });
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(
        approved.stdout,
        'approved flux-system/podinfo staging 6.9.2 as arn:aws:iam::123456789012:user/alice\n',
      );
    });
  });

  describe('-o json', { concurrency: true }, () => {
    it('approve: what was approved, by whom and when; again: the earlier approval, not the caller', async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, 'data');
      await seededDataDir(dataDir, root);
      const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

      const run = await cli('approve', 'flux-system/podinfo', 'staging', '-o', 'json');
      assert.equal(run.code, 0, run.stderr);
      const approved = JSON.parse(run.stdout) as ApproveJson;
      assert.deepEqual(approved, {
        pipeline: 'flux-system/podinfo',
        env: 'staging',
        revision: '6.9.2',
        outcome: 'approved',
        approvedBy: IDENTITY,
        approvedAt: approved.approvedAt,
        delivered: false,
        have: 1,
        need: 1,
      });
      assert.ok(Math.abs(Date.parse(approved.approvedAt ?? '') - Date.now()) < 60_000, approved.approvedAt ?? 'null');
      assert.match(run.stderr, /^note: pipelinectl serve is not running/, 'notes stay on stderr, off the JSON');

      const again = await cli('approve', 'flux-system/podinfo', 'staging', '--revision', '6.9.2', '-o', 'json');
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { ...approved, outcome: 'already-approved' });

      const none = await cli('approve', 'flux-system/podinfo', 'prod', '-o', 'json');
      assert.equal(none.code, 1);
      assert.equal(none.stdout, '');
      assert.equal(none.stderr, 'error: nothing waits for approval in flux-system/podinfo prod\n');
    });

    it('retry: the promotion retried, its next attempt, by whom and when', async (t) => {
      const root = await tempFiles(t, CONFIGURATION);
      const dataDir = join(root, 'data');
      await seededDataDir(dataDir, root);
      const backend = await openLocalBackend(dataDir);
      try {
        await failedForGood(backend.store);
      } finally {
        await backend.close();
      }

      const run = await runCli(['retry', 'flux-system/podinfo', 'prod', '-o', 'json', '--data-dir', dataDir]);
      assert.equal(run.code, 0, run.stderr);
      const retried = JSON.parse(run.stdout) as RetryJson;
      assert.deepEqual(retried, {
        pipeline: 'flux-system/podinfo',
        env: 'prod',
        revision: '6.9.2',
        attempt: 2,
        retriedBy: IDENTITY,
        retriedAt: retried.retriedAt,
        delivered: false,
      });
      const history = await runCli([
        'history',
        '--type',
        'promotion-retry-requested',
        '-o',
        'json',
        '--data-dir',
        dataDir,
      ]);
      assert.equal(history.code, 0, history.stderr);
      const [entry] = (JSON.parse(history.stdout) as { entries: { at: string; actor: string }[] }).entries;
      assert.deepEqual(entry && { at: entry.at, actor: entry.actor }, { at: retried.retriedAt, actor: IDENTITY });

      const again = await runCli(['retry', 'flux-system/podinfo', 'prod', '-o', 'json', '--data-dir', dataDir]);
      assert.equal(again.code, 1);
      assert.equal(again.stdout, '');
      assert.match(again.stderr, /^error: the promotion of 6\.9\.2 to flux-system\/podinfo prod is already scheduled/);
    });
  });
});
