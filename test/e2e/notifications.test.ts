// Notifications to people (docs/notifications.md, "Notifications to people"), end to end through `pipelinectl serve`
// with a Slack incoming webhook and a signed generic webhook (one local server stands in for both): an approval that
// starts waiting is one Slack message with the exact approve command, the approval made through Weave's `/approval`
// webhook is in the history with its approver, and the pull request that follows is one more message with its link.
// Repeated events and polls send nothing twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifySignature } from '../../lib/signing/hmac.js';
import { pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import type { FakeGitHub, FakePullRequest } from '../../lib/testing/fake-github.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, NAMESPACE, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const APPROVALS_KEY = 'podinfo-approvals-key';
const WEBHOOK_KEY = 'news-signing-key';

const podinfoRelease = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
`;

function pullFor(github: FakeGitHub, branch: string): FakePullRequest | undefined {
  return github.pulls(OWNER, REPOSITORY).find((pull) => pull.head === branch);
}

/** Every text of a Slack message, blocks included, as one string to search. */
function textOf(message: unknown): string {
  return JSON.stringify(message);
}

describe('notifications to people, through pipelinectl serve', () => {
  it('tells Slack and a signed webhook once that an approval waits and once that its pull request opened', async (t) => {
    const slack = await FakeSlack.start();
    t.after(() => slack.stop());
    const pipelines = yamlDocuments(
      pipelineYaml({
        name: 'podinfo',
        environments: [
          { name: 'dev', targets: [{ namespace: 'podinfo', cluster: 'dev' }] },
          { name: 'prod', targets: [{ namespace: 'podinfo', cluster: 'prod' }], manual: true },
        ],
        strategy: { url: REPOSITORY_URL },
        hmacSecret: 'podinfo-webhook',
      }),
      secretYaml('podinfo-webhook', { 'hmac-key': APPROVALS_KEY }, NAMESPACE),
      secretYaml('slack', { url: slack.webhookUrl }, NAMESPACE),
      secretYaml('news-webhook', { url: `${slack.url}/hooks/news`, token: WEBHOOK_KEY }, NAMESPACE),
    );
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: {
        'clusters/dev/podinfo.yaml': podinfoRelease('dev', '6.4.0'),
        'clusters/prod/podinfo.yaml': podinfoRelease('prod', '6.4.0'),
      },
      pipelines,
      pollInterval: '1s',
      serveArgs: ['--notify-slack-secret', 'flux-system/slack', '--notify-webhook-secret', 'flux-system/news-webhook'],
    });
    const { github } = world;
    world.cluster('dev').put(helmReleaseRunning('podinfo', '6.4.0'));
    world.cluster('prod').put(helmReleaseRunning('podinfo', '6.4.0'));
    await world.startServe();
    await waitFor('every target read', async () => allTargetsRun(await world.statusNow(), () => '6.4.0'));

    // 1. dev runs 6.5.0: prod waits for an approval, and Slack is told how to give it.
    const released = world.cluster('dev').put(helmReleaseRunning('podinfo', '6.5.0'));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(released, '6.5.0'), 'helm-controller'), 202);
    const [waiting] = await waitFor('the approval message', () =>
      slack.messages.length > 0 ? slack.messages : undefined,
    );
    const approveCommand = `pipelinectl approve flux-system/podinfo prod --revision 6.5.0 --data-dir ${world.dataDir}`;
    assert.ok(textOf(waiting).includes(approveCommand), textOf(waiting));
    assert.match(textOf(waiting), /flux-system\/podinfo/);
    assert.match(textOf(waiting), /prod/);

    // The generic webhook got the same news as JSON, signed with its Secret's token like Flux's generic-hmac.
    // The sinks are told side by side: the webhook's post may arrive after Slack's.
    const signed = await waitFor('the signed news', () => {
      const posts = slack.posts.filter((post) => post.path === '/hooks/news');
      return posts.length > 0 ? posts : undefined;
    });
    assert.equal(signed.length, 1);
    const [news] = signed;
    assert.ok(
      news && verifySignature(String(news.headers['x-signature']), Buffer.from(news.body), WEBHOOK_KEY, ['sha256']),
    );
    assert.deepEqual(
      (({ kind, environment, revision }) => ({ kind, environment, revision }))(
        JSON.parse(news?.body ?? '{}') as Record<string, unknown>,
      ),
      { kind: 'approval-waiting', environment: 'prod', revision: '6.5.0' },
    );

    // The same event again, and polls: still one message.
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(released, '6.5.0'), 'helm-controller'), 202);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(slack.messages.length, 1);

    // 2. Approved through Weave's webhook: the pull request opens, and Slack gets its link.
    assert.equal(await world.approveThroughWeave('podinfo', 'prod', '6.5.0', APPROVALS_KEY), 202);
    const pull = await waitFor('the prod pull request', () => pullFor(github, 'promotion-flux-system-podinfo-prod'));
    const opened = await waitFor('the promotion message', () =>
      slack.messages.length > 1 ? slack.messages[1] : undefined,
    );
    assert.ok(textOf(opened).includes(pull.htmlUrl), textOf(opened));

    // 3. The history shows who approved: the webhook's HMAC key, by its Secret.
    const history = await world.pipelinectl('history', 'flux-system/podinfo', '--type', 'approved', '-o', 'json');
    assert.equal(history.code, 0, history.stderr);
    const [approved] = (JSON.parse(history.stdout) as { entries: { actor: string; revision: string }[] }).entries;
    assert.deepEqual(approved && { actor: approved.actor, revision: approved.revision }, {
      actor: 'hmac-key of Secret flux-system/podinfo-webhook',
      revision: '6.5.0',
    });

    // No URL of a sink, nor a key, in what serve printed.
    const output = world.serve().stdout() + world.serve().stderr();
    for (const secret of [slack.webhookUrl, WEBHOOK_KEY, APPROVALS_KEY]) assert.ok(!output.includes(secret), secret);
    assert.equal(slack.messages.length, 2);
  });
});
