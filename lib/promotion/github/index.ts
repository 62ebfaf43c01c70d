export { GitHubPullRequestPromoter, type GitHubPullRequestPromoterOptions } from './promoter.js';
export { gitHubHost } from './host.js';
export { gitHubCredentials, toPromotionError, type GitHubClientSettings, type GitHubCredentials } from './client.js';
