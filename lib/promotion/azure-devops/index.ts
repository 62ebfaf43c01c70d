export { azureDevOpsHost } from './host.js';
export { azureDevOpsToken, NEEDED_KEYS, toPromotionError } from './client.js';
