// Warnings about promotions that nothing is configured to carry out: a Pipeline promoted by the notification strategy
// where the deployment has no notification sink fails each such promotion for good, which `apply` says before it
// happens (docs/notifications.md). A pull request always has a way (GitHub), so only notifications are checked. The
// configuration is applied all the same: a sink may be added later (a restart of serve, a deploy).
import { formatWarning, type Configuration } from '../config/index.js';
import type { ApplyPorts, NotificationSinksInfo } from './ports.js';
import { isPromotedInto } from '../pipeline/model.js';

/**
 * One warning line per promotion block (a Pipeline's, or an environment's own) whose promotions would fail for want
 * of a sink, located at the field that chose the strategy and written as the configuration's own warnings are.
 */
export async function strategyWarnings(
  backend: Pick<ApplyPorts, 'description' | 'notificationSinks'>,
  configuration: Configuration,
): Promise<string[]> {
  const uses = notificationUses(configuration);
  if (uses.length === 0) return [];
  const sinks: NotificationSinksInfo = (await backend.notificationSinks?.()) ?? {
    known: false,
    reason: `${backend.description} does not say which sinks it has`,
    remedy: 'configure a notification sink where it runs',
  };
  if (sinks.known && sinks.kinds.length > 0) return [];
  return uses.map(({ located, path, environments }) => {
    const promoted = `${plural(environments.length, 'environment')} ${environments.join(', ')} ${
      environments.length === 1 ? 'is' : 'are'
    } promoted by notification`;
    const message = sinks.known
      ? `${promoted}, but ${backend.description} has no notification sink: each such promotion will fail ` +
        `for good (${sinks.remedy})`
      : `${promoted}; cannot tell whether a notification sink is configured (${sinks.reason}): ` +
        `without one each such promotion fails for good (${sinks.remedy})`;
    const at = located.problemAt(path, message);
    const warning = {
      file: at.file ?? located.origin,
      line: at.line,
      column: at.column,
      document: at.document ?? `Pipeline ${located.key.namespace}/${located.key.name}`,
      path: at.path ?? '',
      message,
    };
    return `warning: ${formatWarning(warning)}`;
  });
}

interface NotificationUse {
  located: Configuration['pipelineDocuments'][number];
  /** The field that chose the strategy: the Pipeline's `spec.promotion.strategy.notification`, or an environment's. */
  path: (string | number)[];
  environments: string[];
}

/**
 * The environments promoted by notification, grouped by the promotion block that says so. The first environment is
 * promoted into only from a source (`spec.source`); a block that also names a pull request is carried out by the pull
 * request.
 */
function notificationUses(configuration: Configuration): NotificationUse[] {
  const uses: NotificationUse[] = [];
  configuration.pipelines.forEach((pipeline, index) => {
    const located = configuration.pipelineDocuments[index];
    if (!located) return;
    const byPath = new Map<string, NotificationUse>();
    pipeline.environments.forEach((env, envIndex) => {
      const strategy = env.promotion?.strategy;
      if (
        !isPromotedInto(pipeline, env.name) ||
        strategy?.notification === undefined ||
        strategy['pull-request'] !== undefined
      )
        return;
      const own = located.document.spec.environments[envIndex]?.promotion?.strategy?.notification !== undefined;
      const path = own
        ? ['spec', 'environments', envIndex, 'promotion', 'strategy', 'notification']
        : ['spec', 'promotion', 'strategy', 'notification'];
      const key = path.join('.');
      const use = byPath.get(key) ?? { located, path, environments: [] };
      use.environments.push(env.name);
      byPath.set(key, use);
    });
    uses.push(...byPath.values());
  });
  return uses;
}

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}
