// pipelinectl flux-config: the Secret, Provider and Alert that make a leaf cluster's Flux send its events.
import type { Command } from 'commander';
import { addBackendOptions, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';

export function register(program: Command): void {
  const command = program
    .command('flux-config')
    .summary("The YAML that makes a leaf cluster's Flux send its events")
    .description(
      'Print the YAML that connects a leaf cluster\'s Flux to the receiver, for "kubectl apply -f -" on that ' +
        "cluster: a Secret holding the cluster's event key (derived from the master key), a generic-hmac Provider " +
        'posting to <URL>/v1/events/<ns>/<name>, and an Alert sending every HelmRelease and Kustomization event ' +
        "(severity info) from each namespace the stored pipelines' targets use on the cluster. The GitopsCluster " +
        'must be registered (apply it first).',
    )
    .requiredOption('--cluster <ns/name>', 'the GitopsCluster, as registered')
    .requiredOption('--url <url>', "the receiver's base URL (the stack output ReceiverUrl, or serve's address)")
    .option('--namespace <namespace>', 'namespace of the Secret, Provider and Alert on the leaf cluster', 'flux-system')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  pipelinectl flux-config --cluster flux-system/prod-eu --url http://127.0.0.1:8080 | kubectl apply -f -\n' +
        '  pipelinectl flux-config --aws --stack PipelineControllerStack --cluster flux-system/prod-eu \\\n' +
        '    --url https://abcdef.lambda-url.eu-west-1.on.aws/',
    );
  addBackendOptions(command).action(async (options: { cluster: string; url: string; namespace: string }) => {
    const cluster = parseObjectKey(options.cluster, '--cluster');
    const { fluxConfig } = await import('../actions/flux-config.js');
    await withBackend(command, async (backend) => {
      process.stdout.write(await fluxConfig(backend, { cluster, url: options.url, namespace: options.namespace }));
    });
  });
}
