// The Slack message of a piece of news: Block Kit blocks a person reads at a glance (a header saying what happened,
// the pipeline, environment, revision and reason side by side, the pull request, the approve command ready to copy),
// and a plain `text` that Slack shows in notifications and where blocks cannot be drawn. News about a ConfigSource
// shows the source, the commit, the sync's reason and the problems instead.
//
// Slack's limits are kept (a header's text up to 150 characters, a field's up to 2,000), and every text that came from
// outside (a reason quoting an API error, a revision) is escaped, so nothing in it can turn into a mention or a link.
import { isConfigSourceNews, type ConfigSourceNews, type News, type NewsKind } from './news.js';
import { isHttpUrl } from '../util/http-url.js';

const TITLES: Readonly<Record<NewsKind, string>> = {
  'approval-waiting': 'Approval waiting',
  'promotion-opened': 'Promotion opened',
  'rollback-opened': 'Rollback opened',
  'promotion-failed': 'Promotion failed',
  'environment-regressed': 'Environment regressed',
  'verification-failed': 'Verification failed',
  'config-sync-failed': 'Config sync failed',
};

const HEADER_MAX = 150;
const FIELD_MAX = 2_000;

export interface SlackText {
  type: 'plain_text' | 'mrkdwn';
  text: string;
}

export type SlackBlock =
  | { type: 'header'; text: SlackText & { type: 'plain_text' } }
  | { type: 'section'; text?: SlackText; fields?: SlackText[] }
  | { type: 'context'; elements: SlackText[] };

export interface SlackMessage {
  /** What notifications and clients without blocks show. */
  text: string;
  blocks: SlackBlock[];
}

export function slackMessage(news: News): SlackMessage {
  if (isConfigSourceNews(news)) return configSourceMessage(news);
  const pipeline = `${news.pipeline.namespace}/${news.pipeline.name}`;
  const title = TITLES[news.kind];
  const revision = news.revision ?? 'unknown (the failed targets run different revisions)';
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(`${title}: ${pipeline} ${news.env}`, HEADER_MAX) } },
    {
      type: 'section',
      fields: [
        field('Pipeline', escape(pipeline)),
        field('Environment', escape(news.env)),
        field('Revision', news.revision === undefined ? escape(revision) : code(news.revision)),
        field('Reason', escape(news.reason)),
        ...(news.failureKind === undefined ? [] : [field('Failure kind', code(news.failureKind))]),
      ],
    },
  ];
  if (news.link !== undefined) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Pull request:* ${link(news.link)}` } });
  }
  if (news.approveCommand !== undefined) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*Approve it with:*\n\`\`\`${escape(news.approveCommand)}\`\`\`` },
    });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `pipeline-controller · ${escape(news.at)}` }] });

  const lines = [`${title}: ${pipeline} ${news.env} ${revision}: ${news.reason}`];
  if (news.link !== undefined) lines.push(`Pull request: ${news.link}`);
  if (news.approveCommand !== undefined) lines.push(`Approve it with: ${news.approveCommand}`);
  if (news.failureKind !== undefined) lines.push(`Failure kind: ${news.failureKind}`);
  return { text: escape(lines.join('\n')), blocks };
}

function configSourceMessage(news: ConfigSourceNews): SlackMessage {
  const source = `${news.configSource.namespace}/${news.configSource.name}`;
  const title = TITLES[news.kind];
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(`${title}: ${source}`, HEADER_MAX) } },
    {
      type: 'section',
      fields: [
        field('ConfigSource', escape(source)),
        field('Commit', code(news.revision)),
        field('Reason', code(news.syncReason)),
        field('Problems', escape(news.reason)),
      ],
    },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: 'The last good configuration stays in force; the next commit on the branch is tried.',
      },
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `pipeline-controller · ${escape(news.at)}` }] },
  ];
  const text = `${title}: ${source} ${news.revision}: ${news.syncReason}: ${news.reason}`;
  return { text: escape(text), blocks };
}

function field(label: string, value: string): SlackText {
  return { type: 'mrkdwn', text: cut(`*${label}*\n${value}`, FIELD_MAX) };
}

/** Slack's three control characters in mrkdwn and `text`: what is left is shown as it is. */
function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function code(text: string): string {
  return text.includes('`') ? escape(text) : `\`${escape(text)}\``;
}

/** A link when it is an http(s) URL Slack can hold; anything else (a strategy's other result) as text. */
function link(url: string): string {
  if (!isHttpUrl(url) || /[|<>\s]/.test(url)) return escape(url);
  return `<${url}>`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
