// `sync-config-source`: sync one ConfigSource with its branch head (lib/config-source/sync.ts). Sent by the poller
// for every source on every poll, by the receiver on a signed push webhook, and by `apply` of a changed source. A
// message that finds another sync holding the source does nothing: the commit it saw is synced by that sync or,
// when that sync is of an earlier commit, by the next poll.
import type { SyncConfigSourceMessage } from '../../queue/messages.js';
import { objectKeyString } from '../../pipeline/model.js';
import { secretKeyNames } from '../../secrets/port.js';
import type { VerifierDeps } from '../deps.js';

export async function syncSource(message: SyncConfigSourceMessage, deps: VerifierDeps): Promise<void> {
  const { configSources } = deps;
  if (!configSources) {
    deps.logger.warn('config source not synced: this verifier reads no Git host', {
      configSource: objectKeyString(message.source),
    });
    return;
  }
  // Loaded by the first sync a container makes, not at its cold start: the sync brings the YAML parser and the
  // archive readers with it, and most of a verifier's messages are not syncs.
  const { syncConfigSource } = await import('../../config-source/sync.js');
  const outcome = await syncConfigSource(message.source, {
    store: deps.store,
    git: configSources.git,
    apply: {
      store: deps.store,
      secretKeys: (key) => secretKeyNames(configSources.git.secrets, key),
      // Secrets are marked by use where they are applied, with the CLI (docs/config-sources.md, "Secrets").
      enqueue: async (queued) => {
        await deps.queue.send(queued);
        return true;
      },
    },
    logger: deps.logger,
    now: deps.now,
    ...(configSources.onFailure === undefined ? {} : { onFailure: configSources.onFailure }),
  });
  deps.logger.info('config source sync', {
    configSource: objectKeyString(message.source),
    cause: message.cause,
    outcome: outcome.outcome,
  });
}
