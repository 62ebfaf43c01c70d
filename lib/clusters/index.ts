// The public API of lib/clusters: reading Flux app objects from leaf clusters (kubeconfig Secrets, CAPI, EKS).
export type { ClusterErrorKind, ClusterReader } from './port.js';
export { ClusterAccessError } from './port.js';
export type {
  AwsCredentials,
  AwsCredentialsProvider,
  EksAccessOptions,
  EksApiClient,
  EksClusterRef,
  EksConnection,
  StsApiClient,
} from './eks.js';
export { createEksToken, EKS_TOKEN_CACHE_MS, EKS_TOKEN_LIFETIME_MS, EksAccess, stsHostname } from './eks.js';
export { FLUX_APP_APIS } from './flux-app-apis.js';
export { loadKubeconfig } from './kubeconfig.js';
export type { KubernetesClusterReaderOptions } from './kubernetes-reader.js';
export { KubernetesClusterReader } from './kubernetes-reader.js';
