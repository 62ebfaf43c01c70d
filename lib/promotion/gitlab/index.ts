export { gitLabHost } from './host.js';
export { toPromotionError } from './client.js';
export { gitLabToken, NEEDED_KEYS } from './credentials.js';
