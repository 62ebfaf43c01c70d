export { bitbucketServerHost } from './host.js';
export {
  BitbucketServerAnswerError,
  BitbucketServerApiError,
  BitbucketServerClient,
  BitbucketServerConnectionError,
  bitbucketServerCredentials,
  NEEDED_KEYS,
  toPromotionError,
  type BitbucketServerCredentials,
} from './client.js';
