export { gitHubHost } from './host.js';
export { toPromotionError, type GitHubClientSettings } from './client.js';
export { gitHubCredentials, type GitHubCredentials } from './credentials.js';
