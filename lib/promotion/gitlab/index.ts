export { gitLabHost } from './host.js';
export { gitLabToken, NEEDED_KEYS, toPromotionError } from './client.js';
