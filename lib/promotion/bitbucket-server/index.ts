export { bitbucketServerHost } from './host.js';
export {
  BitbucketServerAnswerError,
  BitbucketServerApiError,
  BitbucketServerClient,
  BitbucketServerConnectionError,
  toPromotionError,
} from './client.js';
export { bitbucketServerCredentials, NEEDED_KEYS, type BitbucketServerCredentials } from './credentials.js';
