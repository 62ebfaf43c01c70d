/**
 * How long audit entries and finished promotion records are kept, in days, unless a deployment says otherwise: the
 * table's TTL. The construct, the Lambda functions and `pipelinectl metrics` (whose windows the audit trail bounds)
 * all read it here.
 */
export const DEFAULT_RETENTION_DAYS = 90;
