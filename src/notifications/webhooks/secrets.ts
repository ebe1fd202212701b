/**
 * A webhook's signing secrets as a sender needs them: opened from their sealed form under the master key once per
 * process, the previous secret beside the current one for 24 hours after a rotation (docs/events.md "What a delivery
 * carries", `webhook-signature`).
 */
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { EVENT_WEBHOOK_SECRET_PURPOSE } from './signing.js';
import type { WebhookTarget } from './store.js';

/** Opened secrets kept per process at most (count); past it the cache starts again. */
const CACHED = 10_000;

/** Opens webhooks' sealed secrets, each once per process and sealed value. */
export class WebhookSecrets {
  private readonly opened = new Map<string, string>();

  constructor(private readonly master: MasterKey) {}

  /**
   * The webhook's live secrets, current first: the previous one too until its overlap ends.
   * @throws the master key's error when a sealed secret does not open (another key, altered data).
   */
  live(target: WebhookTarget): string[] {
    const live = [this.open(target.secretSealed)];
    if (target.previousSecretSealed && target.previousSecretUntil && target.previousSecretUntil.getTime() > Date.now())
      live.push(this.open(target.previousSecretSealed));
    return live;
  }

  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.master.open(sealed, EVENT_WEBHOOK_SECRET_PURPOSE);
      if (this.opened.size >= CACHED) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }
}
