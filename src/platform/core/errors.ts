/**
 * The domain errors: what went wrong, in the terms of the rules that refuse a request, each with a stable
 * string `code` (docs/api.md "Error codes") and a human `message` safe to show to the caller (never a secret).
 * They know nothing of HTTP: the server edge maps each code to a status and an answer (src/platform/http/errors.ts).
 * The few details an answer needs beyond the message travel with the error: the OAuth 2.0 error code
 * (RFC 6749 §5.2), the seconds after which a retry may succeed, the authentication scheme the caller
 * should present, and whether the connection should close after the answer.
 */

/** Every stable error code, as listed in docs/api.md "Error codes". */
export const ERROR_CODES = [
  'ASSENT_ERR_INVALID_REQUEST',
  'ASSENT_ERR_UNAUTHENTICATED',
  'ASSENT_ERR_ACCESS_DENIED',
  'ASSENT_ERR_NOT_FOUND',
  'ASSENT_ERR_CONFLICT',
  'ASSENT_ERR_GONE',
  'ASSENT_ERR_TOO_LARGE',
  'ASSENT_ERR_UNSUPPORTED_MEDIA_TYPE',
  'ASSENT_ERR_RATE_LIMITED',
  'ASSENT_ERR_UPSTREAM_FAILURE',
  'ASSENT_ERR_UNAVAILABLE',
] as const;

/** A stable error code (`ASSENT_ERR_*`): logged with every refused request; never changes meaning. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** OAuth 2.0 error codes used by Assent (RFC 6749 §5.2). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'invalid_client'
  | 'unauthorized_client'
  | 'access_denied'
  | 'temporarily_unavailable'
  /** A second factor is needed to finish the login (the convention of Auth0's MFA API; docs/api.md "Second factor"). */
  | 'mfa_required';

/** What an error carries besides its code and message; all optional. */
export interface ErrorDetails {
  /** RFC 6749 §5.2 code, answered as `error` where the operation speaks OAuth 2.0. */
  oauthError?: OAuthErrorCode;
  /** Seconds after which a new attempt may succeed (whole seconds; RFC 9110 §10.2.3 `Retry-After`). */
  retryAfterSeconds?: number;
  /** The authentication scheme the caller should present (RFC 6750 §3 `WWW-Authenticate`). */
  challenge?: 'Bearer';
  /** Whether the connection should close after the answer: the rest of the request body is not read. */
  closeConnection?: boolean;
  /** Fields the answer carries besides `Code` and `Message` (the `mfa_token` of a login's second step). */
  extra?: Record<string, string>;
}

/** The base of the domain errors: a stable code, a message safe to show, and the details of `ErrorDetails`. */
export abstract class AssentError extends Error {
  override name = 'AssentError';
  /** RFC 6749 §5.2 code, when the refusal has one. */
  readonly oauthError?: OAuthErrorCode;
  /** Seconds after which a retry may succeed. */
  readonly retryAfterSeconds?: number;
  /** The authentication scheme to present. */
  readonly challenge?: 'Bearer';
  /** Whether the connection should close after the answer. */
  readonly closeConnection: boolean;
  /** Fields the answer carries besides `Code` and `Message`. */
  readonly extra?: Record<string, string>;

  /**
   * @param code - the stable code.
   * @param message - human text; never contains secrets.
   * @param details - what the answer needs beyond the message.
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message);
    this.oauthError = details.oauthError;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.challenge = details.challenge;
    this.closeConnection = details.closeConnection ?? false;
    this.extra = details.extra;
  }
}

/** The request is malformed or breaks a rule of the operation (`ASSENT_ERR_INVALID_REQUEST`). */
export class InvalidRequest extends AssentError {
  /**
   * @param oauthError - RFC 6749 §5.2 code, e.g. `invalid_grant` for a bad code or password.
   * @param options - `closeConnection` when the rest of the body is not read.
   */
  constructor(message: string, oauthError?: OAuthErrorCode, options: Pick<ErrorDetails, 'closeConnection'> = {}) {
    super('ASSENT_ERR_INVALID_REQUEST', message, { oauthError, ...options });
  }
}

/** No valid credentials: absent, malformed, wrong or no longer live (`ASSENT_ERR_UNAUTHENTICATED`). */
export class Unauthenticated extends AssentError {
  /** @param oauthError - RFC 6749 §5.2 code, e.g. `invalid_client`. */
  constructor(message = 'Unauthorized', oauthError?: OAuthErrorCode) {
    super('ASSENT_ERR_UNAUTHENTICATED', message, { oauthError, challenge: 'Bearer' });
  }
}

/** Authenticated, but the access policy does not allow this operation (`ASSENT_ERR_ACCESS_DENIED`). */
export class AccessDenied extends AssentError {
  constructor(message = 'Forbidden') {
    super('ASSENT_ERR_ACCESS_DENIED', message, { oauthError: 'access_denied' });
  }
}

/** Nothing the caller may see has that name (docs/api.md "Identifiers"; `ASSENT_ERR_NOT_FOUND`). */
export class NotFound extends AssentError {
  constructor(message = 'Not found') {
    super('ASSENT_ERR_NOT_FOUND', message);
  }
}

/** The request conflicts with what exists, e.g. a username already taken (`ASSENT_ERR_CONFLICT`). */
export class Conflict extends AssentError {
  constructor(message = 'Conflict') {
    super('ASSENT_ERR_CONFLICT', message);
  }
}

/** A single-use thing was used already or has expired (`ASSENT_ERR_GONE`). */
export class Gone extends AssentError {
  /** @param oauthError - RFC 6749 §5.2 code, when the operation speaks OAuth 2.0. */
  constructor(message: string, oauthError?: OAuthErrorCode) {
    super('ASSENT_ERR_GONE', message, { oauthError });
  }
}

/** The request body, or a file in it, is larger than the operation accepts (`ASSENT_ERR_TOO_LARGE`). */
export class TooLarge extends AssentError {
  /** @param options - `closeConnection` when the rest of the body is not read. */
  constructor(message: string, options: Pick<ErrorDetails, 'closeConnection'> = {}) {
    super('ASSENT_ERR_TOO_LARGE', message, options);
  }
}

/** The body is of a type the operation does not read (`ASSENT_ERR_UNSUPPORTED_MEDIA_TYPE`). */
export class UnsupportedMediaType extends AssentError {
  /** @param options - `closeConnection` when the rest of the body is not read. */
  constructor(message: string, options: Pick<ErrorDetails, 'closeConnection'> = {}) {
    super('ASSENT_ERR_UNSUPPORTED_MEDIA_TYPE', message, options);
  }
}

/** Throttled: too many attempts or requests (`ASSENT_ERR_RATE_LIMITED`). */
export class RateLimited extends AssentError {
  /** @param retryAfterSeconds - seconds until a new attempt is accepted (rounded up, at least 1). */
  constructor(retryAfterSeconds: number) {
    super('ASSENT_ERR_RATE_LIMITED', 'Too many attempts; try again later', {
      oauthError: 'temporarily_unavailable',
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)),
    });
  }
}

/**
 * A service Assent depends on for this operation (an identity provider, the mail relay) refused or could not be
 * reached (`ASSENT_ERR_UPSTREAM_FAILURE`); the message is fixed, never the other service's answer.
 */
export class UpstreamFailure extends AssentError {
  /** @param oauthError - RFC 6749 §5.2 code, when the operation speaks OAuth 2.0. */
  constructor(message: string, oauthError?: OAuthErrorCode) {
    super('ASSENT_ERR_UPSTREAM_FAILURE', message, { oauthError });
  }
}

/** Assent itself is temporarily unable to serve, e.g. its database is unreachable (`ASSENT_ERR_UNAVAILABLE`). */
export class Unavailable extends AssentError {
  /** @param retryAfterSeconds - whole seconds after which a retry may succeed. */
  constructor(retryAfterSeconds: number) {
    super('ASSENT_ERR_UNAVAILABLE', 'The service is temporarily unavailable; try again later', {
      oauthError: 'temporarily_unavailable',
      retryAfterSeconds,
    });
  }
}
