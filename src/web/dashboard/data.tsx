/**
 * "My data" (docs/web.md "Privacy dashboard"): the export of everything Assent holds about the
 * individual (GDPR Art. 15, 20), the profile (name, phone, image), the password, and account deletion
 * (GDPR Art. 17) behind a confirmation step.
 */

import type { UserBody } from '../../identity/index.js';
import { Csrf } from '../shared/layout.js';
import { DashboardPage } from './shell.js';

/** What the page shows. */
export interface DataProps {
  user: UserBody;
  csrfToken: string;
  /** A message after a change ("Profile saved"). */
  done?: string;
  /** Why a change was refused (the service's message); the page is then answered with its 4xx. */
  error?: string;
}

/** The page. */
export function DataPage({ user, csrfToken, done, error }: DataProps) {
  return (
    <DashboardPage title="My data" current="/dashboard/data" csrfToken={csrfToken}>
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {
        <section class="card" aria-labelledby="export">
          <h2 id="export">Download your data</h2>
          <p>One JSON file with your profile, subscriptions, consent records and their full history.</p>
          <p>
            <a class="button" href="/dashboard/data/export" download>
              Download my data
            </a>
          </p>
        </section>
      }
      <section class="card" aria-labelledby="profile">
        <h2 id="profile">Profile</h2>
        <form method="post" action="/dashboard/data/profile">
          <Csrf token={csrfToken} />
          <p class="muted">E-mail: {user.Email}</p>
          <label for="name">Name</label>
          <input id="name" name="name" type="text" autocomplete="name" maxLength={200} value={user.Name} />
          <label for="phone">Phone</label>
          <input id="phone" name="phone" type="tel" autocomplete="tel" maxLength={40} value={user.Phone} />
          <p>
            <button type="submit">Save profile</button>
          </p>
        </form>
      </section>
      <ProfileImage user={user} csrfToken={csrfToken} />
      <section class="card" aria-labelledby="password">
        <h2 id="password">Password</h2>
        <form method="post" action="/dashboard/data/password">
          <Csrf token={csrfToken} />
          <label for="currentpassword">Current password</label>
          <input id="currentpassword" name="currentpassword" type="password" autocomplete="current-password" required />
          <label for="newpassword">New password</label>
          <input id="newpassword" name="password" type="password" autocomplete="new-password" required minLength={8} />
          <p>
            <button type="submit">Change password</button>
          </p>
        </form>
      </section>
      <section class="card" aria-labelledby="delete">
        <h2 id="delete">Delete my account</h2>
        <p>
          Your account, profile and sign-in data are erased. The organisations keep the history of your consents as
          evidence (GDPR Art. 17(3)(e)).
        </p>
        <p>
          <a class="button" href="/dashboard/data/delete">
            Delete my account…
          </a>
        </p>
      </section>
    </DashboardPage>
  );
}

/**
 * The profile image (docs/decisions/0010-profile-images.md): shown from `/dashboard/data/image`, the
 * session's own (its ID in the URL, so that a replaced image is fetched anew); uploaded or replaced as
 * a multipart form whose CSRF field comes before the file (src/web/shared/guard.ts `csrfInMultipart`).
 */
function ProfileImage({ user, csrfToken }: { user: UserBody; csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="image">
      <h2 id="image">Profile image</h2>
      {user.ImageID ? (
        <p>
          <img
            src={`/dashboard/data/image?v=${user.ImageID}`}
            alt={`${user.Name || user.Email}, as you show yourself`}
            width={128}
          />
        </p>
      ) : (
        <p class="muted">No profile image yet.</p>
      )}
      <form method="post" action="/dashboard/data/image" enctype="multipart/form-data">
        <Csrf token={csrfToken} />
        <label for="userimage">JPEG, PNG or WebP, at most 5 MiB and 4096×4096 pixels</label>
        <input id="userimage" name="userimage" type="file" accept="image/jpeg,image/png,image/webp" required />
        <p>
          <button type="submit">{user.ImageID ? 'Replace image' : 'Upload image'}</button>
        </p>
      </form>
    </section>
  );
}

/** The confirmation step of account deletion: type DELETE. */
export function DeletePage({ csrfToken, error }: { csrfToken: string; error?: string }) {
  return (
    <DashboardPage title="Delete my account" current="/dashboard/data" csrfToken={csrfToken}>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p>This cannot be undone. You are signed out everywhere at once.</p>
      <form method="post" action="/dashboard/data/delete">
        <Csrf token={csrfToken} />
        <label for="confirm">Type DELETE to confirm</label>
        <input id="confirm" name="confirm" type="text" autocomplete="off" required />
        <p>
          <button type="submit" class="danger">
            Delete my account
          </button>{' '}
          <a href="/dashboard/data">Cancel</a>
        </p>
      </form>
    </DashboardPage>
  );
}
