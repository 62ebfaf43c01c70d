// pipelinectl flux-config: the Secret, Provider and Alert that make a leaf cluster's Flux send its events.
import type { Command } from 'commander';
import {
  CURRENT_FLUX_RELEASE,
  fluxConfig,
  OLDEST_FLUX_MINOR,
  parseFluxVersion,
  parseNamespaceList,
} from '../operations/flux-config.js';
import { addBackendOptions, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { currentTerminal } from '../terminal.js';
import { CliError } from '../errors.js';
import { externalServiceConfig } from '../operations/external-service-config.js';

interface FluxConfigFlags {
  cluster?: string;
  externalService?: string;
  schedule?: string;
  url: string;
  namespace?: string;
  fluxVersion: string;
  namespaces?: string;
  /** False with --no-cross-namespace-refs. */
  crossNamespaceRefs: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('flux-config')
    .summary("The YAML that makes a leaf cluster's Flux send its events, or pull an environment's input")
    .description(
      'Print the YAML that connects a leaf cluster\'s Flux to the receiver, for "kubectl apply -f -" on that ' +
        "cluster: a Secret holding the cluster's event key (derived from the master key), a generic-hmac Provider " +
        'posting to <URL>/v1/events/<ns>/<name>, and an Alert sending every HelmRelease and Kustomization event ' +
        "(severity info) from each namespace the stored pipelines' targets use on the cluster (or those named " +
        'with --namespaces). Provider and Alert are notification.toolkit.fluxcd.io/v1beta3 for Flux 2.2 and later, ' +
        'v1beta2 for Flux 2.0 and 2.1. For a Flux run with --no-cross-namespace-refs, where an Alert only receives ' +
        'events from its own namespace, --no-cross-namespace-refs prints the three objects once in each app ' +
        'namespace. Keep the token out of Git: encrypt the Secret with SOPS or create it with External Secrets. ' +
        'The GitopsCluster must be registered (apply it first). With --external-service NS/PIPELINE ENV instead: ' +
        "a Secret with the environment's input token and a Flux Operator ResourceSetInputProvider of type " +
        'ExternalService polling <URL>/v1/inputs/<ns>/<pipeline>/<env>, then example ResourceSets as comments.',
    )
    .argument('[environment]', 'with --external-service: the environment whose input the leaf clusters pull')
    .option('--cluster <ns/name>', 'the GitopsCluster, as registered')
    .option(
      '--external-service <ns/pipeline>',
      "instead of a cluster's events: the Secret and Flux Operator ResourceSetInputProvider (type ExternalService) " +
        "that make an external-service environment's leaf clusters pull the revision it may run",
    )
    .option('--schedule <cron>', "with --external-service: fetch only at these times (the provider's spec.schedule)")
    .requiredOption('--url <url>', "the receiver's base URL (the stack output ReceiverUrl, or serve's address)")
    .option(
      '--namespace <namespace>',
      'namespace of the Secret, Provider and Alert on the leaf cluster (default: flux-system)',
    )
    .option(
      '--flux-version <version>',
      `the leaf cluster's Flux release, 2.${OLDEST_FLUX_MINOR} to ${CURRENT_FLUX_RELEASE} (e.g. 2.4 or v2.4.1): ` +
        'picks the Provider and Alert API version',
      CURRENT_FLUX_RELEASE,
    )
    .option(
      '--namespaces <list>',
      "the app namespaces whose events to send, comma-separated (default: those the stored pipelines' targets use)",
    )
    .option(
      '--no-cross-namespace-refs',
      'for a Flux run with --no-cross-namespace-refs: one Secret, Provider and Alert in each app namespace',
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  pipelinectl flux-config --cluster flux-system/prod-eu --url http://127.0.0.1:8080 | kubectl apply -f -\n' +
        '  pipelinectl flux-config --aws --stack PipelineControllerStack --cluster flux-system/prod-eu \\\n' +
        '    --url https://abcdef.lambda-url.eu-west-1.on.aws/\n' +
        '  pipelinectl flux-config --cluster flux-system/prod-eu --url http://127.0.0.1:8080 --flux-version 2.1 \\\n' +
        '    --no-cross-namespace-refs --namespaces team-a,team-b\n' +
        '  pipelinectl flux-config --external-service flux-system/podinfo prod --url http://127.0.0.1:8080 \\\n' +
        "    --schedule '0 9-16 * * 1-5' | kubectl apply -f -",
    );
  addBackendOptions(command).action(async (environment: string | undefined, flags: FluxConfigFlags) => {
    if (flags.externalService !== undefined) {
      if (flags.cluster !== undefined) throw new CliError('--cluster and --external-service exclude each other');
      if (environment === undefined) {
        throw new CliError('--external-service needs the environment: flux-config --external-service NS/PIPELINE ENV');
      }
      const pipeline = parseObjectKey(flags.externalService, '--external-service');
      await withBackend(command, async (backend) => {
        currentTerminal().stdout.write(
          await externalServiceConfig(backend, {
            pipeline,
            env: environment,
            url: flags.url,
            namespace: flags.namespace,
            schedule: flags.schedule,
          }),
        );
      });
      return;
    }
    if (flags.cluster === undefined) throw new CliError('name the leaf cluster with --cluster (or --external-service)');
    if (environment !== undefined)
      throw new CliError(`unexpected argument "${environment}": it goes with --external-service`);
    const cluster = parseObjectKey(flags.cluster, '--cluster');
    const fluxVersion = parseFluxVersion(flags.fluxVersion);
    const namespaces = flags.namespaces === undefined ? undefined : parseNamespaceList(flags.namespaces);
    await withBackend(command, async (backend) => {
      currentTerminal().stdout.write(
        await fluxConfig(backend, {
          cluster,
          url: flags.url,
          namespace: flags.namespace,
          fluxVersion,
          namespaces,
          perNamespace: !flags.crossNamespaceRefs,
        }),
      );
    });
  });
}
