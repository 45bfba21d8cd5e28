// Shapes shared by the authentication services. A leaf of the auth folder: the services import it, it
// imports none of them (users and sessions used to import each other for these).
import type { IncomingMessage } from 'node:http';
import type { Tx } from '../store/types.js';
import type { Principal, Role } from './scopes.js';

/** Resolves the caller of a request from its session cookie or X-API-Key header. */
export interface Authenticator {
  /** null when the request carries no credentials; throws HttpError 401 when they are invalid or expired. */
  authenticate(req: IncomingMessage): Promise<Principal | null>;
}

/** A hook that runs inside the write transaction that made `result`, so related writes land together. */
export type InTx<T> = (tx: Tx, result: T) => void;

export interface UserRow {
  id: string;
  username: string;
  display_name: string | null;
  email: string | null;
  role: Role;
  password_hash: string;
  one_time: number;
  disabled: number;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  password_changed_at: string | null;
}
