// The promotion record a rollback is carried out under (docs/rollback.md): (pipeline, `rollback:{env}`, failed
// revision). It lives beside the environment's promotion records and uses their lifecycle (create, claim, complete,
// fail), so a rollback is made at most once per (environment, failed revision) like a promotion per revision. An
// environment's name cannot hold `:`, so the key never names an environment. Imports nothing: the decision, the
// verifier and the views all read it.

const ROLLBACK_RECORD_PREFIX = 'rollback:';

/** The record key's environment part of a rollback of `env`: `rollback:prod`. */
export function rollbackRecordEnv(env: string): string {
  return `${ROLLBACK_RECORD_PREFIX}${env}`;
}

/** The environment a rollback record is about (`rollback:prod` → `prod`); undefined for a promotion's record. */
export function rolledBackEnv(recordEnv: string): string | undefined {
  return recordEnv.startsWith(ROLLBACK_RECORD_PREFIX) ? recordEnv.slice(ROLLBACK_RECORD_PREFIX.length) : undefined;
}
