import { PromotionError } from '../../lib/promotion/index.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { promoterContract } from './promoter-contract.js';

promoterContract('RecordingPromoter', () => {
  const promoter = new RecordingPromoter();
  return Promise.resolve({
    promoter,
    effects: (env, revision) =>
      Promise.resolve(
        promoter.promotions().filter((p) => p.env === env && p.revision === revision && !p.rollbackFrom).length,
      ),
    rollbackEffects: (env, from) =>
      Promise.resolve(promoter.promotions().filter((p) => p.env === env && p.rollbackFrom === from).length),
    injectFault: (kind) =>
      promoter.failNext(
        new PromotionError(kind === 'transient' ? 'HostUnavailable' : 'Invalid', `injected ${kind} fault`),
      ),
  });
});
