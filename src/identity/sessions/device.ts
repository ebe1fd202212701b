/**
 * The device a session is opened from, as its person is shown it (docs/security.md "Sessions"): the `User-Agent`
 * (cut to 300 characters) and the client address's network, never the address itself.
 */
import type { FastifyRequest } from 'fastify';
import { ipPrefix } from '../../platform/util/ip.js';

/** The device of a new session. */
export interface Device {
  /** At most 300 characters; '' when unknown. */
  userAgent: string;
  /** The client address (for the login throttle; stored only as its network). */
  ip: string;
}

/** A device nothing is known of (a session opened outside a request). */
export const UNKNOWN_DEVICE: Device = { userAgent: '', ip: '' };

/** The device of a request. */
export function deviceOf(request: FastifyRequest): Device {
  const agent = request.headers['user-agent'];
  return { userAgent: typeof agent === 'string' ? agent.slice(0, 300) : '', ip: request.ip };
}

/** The stored columns of a device. */
export function deviceColumns(device: Device): { userAgent: string; ipPrefix: string } {
  return { userAgent: device.userAgent.slice(0, 300), ipPrefix: ipPrefix(device.ip) };
}
