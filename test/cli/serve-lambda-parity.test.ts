// Every setting the Lambdas read from their environment (lib/runtime/aws.ts) has its `serve` equivalent, or
// docs/local-mode.md says why it has none. The promotion settings are also read by `serve` from the very variables
// the verifier Lambda reads, so one set of variables configures both runtimes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { parseServeFlags, register } from '../../lib/cli/commands/serve.js';
import { AWS_ENVIRONMENT_VARIABLES } from '../../lib/runtime/aws.js';
import { REPO_ROOT, runCli } from '../support/pipelinectl.js';

interface Equivalent {
  /** The serve flag that sets it, if any. */
  flag?: string;
  /** Whether serve reads the same variable (for that flag). */
  sameVariable?: boolean;
}

/** The Lambda's variables and what sets the same thing for `serve`. */
const PARITY: Record<(typeof AWS_ENVIRONMENT_VARIABLES)[number], Equivalent> = {
  TABLE_NAME: { flag: '--data-dir' }, // the store is dynalite in <data-dir>/dynamodb
  QUEUE_URL: {}, // the queue is in memory
  DEAD_LETTER_QUEUE_URL: {}, // dead letters are kept in memory
  MASTER_KEY_SECRET_ID: { flag: '--data-dir' }, // master-key.json, or PIPELINES_HMAC_KEY
  SECRETS_PREFIX: { flag: '--config' }, // the Secrets of the configuration, kept in secrets.json
  RETENTION_DAYS: {}, // the local store expires nothing
  GITHUB_API_URL: { flag: '--github-api-url', sameVariable: true },
  GITLAB_API_URL: { flag: '--gitlab-api-url', sameVariable: true },
  BITBUCKET_SERVER_API_URL: { flag: '--bitbucket-server-api-url', sameVariable: true },
  AZURE_DEVOPS_API_URL: { flag: '--azure-devops-api-url', sameVariable: true },
  NOTIFICATION_WEBHOOK_URL: { flag: '--notification-webhook-url', sameVariable: true },
  NOTIFICATION_WEBHOOK_SECRET_ID: { flag: '--notification-webhook-secret' },
  NOTIFICATION_EVENT_BUS: { flag: '--notification-event-bus', sameVariable: true },
  NOTIFICATION_CONTROLLER_URL: { flag: '--notification-controller-url', sameVariable: true },
  NOTIFY_SLACK_SECRET_ID: { flag: '--notify-slack-secret' },
  NOTIFY_WEBHOOK_SECRET_ID: { flag: '--notify-webhook-secret' },
  NOTIFY_EVENT_BUS: { flag: '--notify-event-bus', sameVariable: true },
  NOTIFY_NEWS: { flag: '--notify-news', sameVariable: true },
  NOTIFY_APPROVE_FLAGS: {}, // serve's messages name its data directory
  COMMIT_AUTHOR_NAME: { flag: '--commit-author-name', sameVariable: true },
  COMMIT_AUTHOR_EMAIL: { flag: '--commit-author-email', sameVariable: true },
};

/** The local mode's page, docs/local-mode.md. */
async function localModePage(): Promise<string> {
  return readFile(join(REPO_ROOT, 'docs', 'local-mode.md'), 'utf8');
}

describe('serve ↔ Lambda settings', () => {
  it('maps every variable the Lambdas read, and each flag is one `pipelinectl serve --help` shows', async () => {
    assert.deepEqual(Object.keys(PARITY).sort(), [...AWS_ENVIRONMENT_VARIABLES].sort());
    const help = await runCli(['serve', '--help']);
    assert.equal(help.code, 0, help.stderr);
    const text = help.stdout.replace(/\s+/g, ' ');
    for (const [variable, { flag, sameVariable }] of Object.entries(PARITY)) {
      if (!flag) continue;
      assert.match(text, new RegExp(` ${flag} <`), `${variable}: ${flag} in serve --help`);
      if (sameVariable) {
        // The first `(env: …)` after the flag is its own (commander ends each option's help with it).
        const env = new RegExp(` ${flag} <[^>]*>.*?\\(env: ([A-Z_]+)\\)`).exec(text)?.[1];
        assert.equal(env, variable, `${flag} reads ${variable}`);
      }
    }
  });

  it('documents each in docs/local-mode.md, with why serve has none where it has none', async () => {
    const section = await localModePage();
    for (const [variable, { flag }] of Object.entries(PARITY)) {
      const row = section.split('\n').find((line) => line.startsWith(`| \`${variable}\``));
      assert.ok(row, `docs/local-mode.md: a row for ${variable}`);
      if (flag) assert.ok(row.includes(`\`${flag}`), `${variable}'s row names ${flag}: ${row}`);
      else assert.match(row, /\| none/, `${variable}'s row says serve has none: ${row}`);
    }
  });

  it('reads the promotion settings from those variables; a flag on the command line wins', () => {
    const parsed = (args: string[], env: Record<string, string>) => {
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const program = new Command().exitOverride();
        register(program);
        const serve = program.commands.find((command) => command.name() === 'serve') ?? assert.fail('no serve');
        let flags: Record<string, unknown> = {};
        serve.action((given: Record<string, unknown>) => {
          flags = given;
        });
        program.parse(['serve', '--config', 'config', ...args], { from: 'user' });
        return flags;
      } finally {
        for (const name of Object.keys(env)) {
          if (saved[name] === undefined) delete process.env[name];
          else process.env[name] = saved[name];
        }
      }
    };
    const environment = {
      GITHUB_API_URL: 'https://github.example.com/api/v3',
      GITLAB_API_URL: 'https://gitlab.example.com/api/v4',
      BITBUCKET_SERVER_API_URL: 'https://bitbucket.example.com',
      AZURE_DEVOPS_API_URL: 'https://ado.example.com/tfs/Fleet',
      COMMIT_AUTHOR_NAME: 'Release Bot',
      COMMIT_AUTHOR_EMAIL: 'bot@acme.example',
      NOTIFICATION_WEBHOOK_URL: 'https://hooks.example.com/promotions',
      NOTIFICATION_WEBHOOK_SECRET: 'flux-system/webhook-signing',
      NOTIFICATION_CONTROLLER_URL: 'http://notification-controller.flux-system.svc.cluster.local./',
      NOTIFICATION_EVENT_BUS: 'promotions',
    };
    assert.deepEqual(parsed([], environment), {
      config: 'config',
      port: '8080',
      host: '127.0.0.1',
      dataDir: '.data',
      pollInterval: '5m',
      githubApiUrl: 'https://github.example.com/api/v3',
      gitlabApiUrl: 'https://gitlab.example.com/api/v4',
      bitbucketServerApiUrl: 'https://bitbucket.example.com',
      azureDevopsApiUrl: 'https://ado.example.com/tfs/Fleet',
      commitAuthorName: 'Release Bot',
      commitAuthorEmail: 'bot@acme.example',
      notificationWebhookUrl: 'https://hooks.example.com/promotions',
      notificationWebhookSecret: 'flux-system/webhook-signing',
      notificationControllerUrl: 'http://notification-controller.flux-system.svc.cluster.local./',
      notificationEventBus: 'promotions',
    });
    const typed = parsed(['--github-api-url', 'https://ghe.acme.example/api/v3'], environment);
    assert.equal(typed.githubApiUrl, 'https://ghe.acme.example/api/v3');
    const flags = parsed(['--gitlab-api-url', 'https://gitlab.acme.example/api/v4'], environment);
    const options = parseServeFlags(flags as unknown as Parameters<typeof parseServeFlags>[0]);
    assert.equal(options.gitlabApiUrl, 'https://gitlab.acme.example/api/v4');
    assert.equal(options.bitbucketServerApiUrl, 'https://bitbucket.example.com');
    assert.equal(options.azureDevOpsApiUrl, 'https://ado.example.com/tfs/Fleet');
  });
});
