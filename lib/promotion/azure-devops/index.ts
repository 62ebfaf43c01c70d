export { azureDevOpsHost } from './host.js';
export { toPromotionError } from './client.js';
export { azureDevOpsToken, NEEDED_KEYS } from './credentials.js';
