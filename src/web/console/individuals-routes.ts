/**
 * Routes of the console's individuals pages (docs/web.md "Console"), at `{PUBLIC_URL}/console`:
 * - `GET /console/{organizationID}/individuals` (search by name or e-mail, keyset pages, the count);
 *   `POST …/individuals` (add one)
 * - `GET /console/{organizationID}/individuals/{userID}` (their consent record, read-only, and a page
 *   of their consent history); `POST …/individuals/{userID}/remove` (unsubscribe, once confirmed)
 * Each names the API operation whose access-policy row decides who may use it (`api`); the services
 * apply the rest of the API's rules (`individuals.add`, `consents.read`, `consents.history.list`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ConsentService, HistoryService, PurposeService } from '../../consent/index.js';
import { PasswordPolicyError } from '../../identity/index.js';
import { type IndividualService, managesIndividuals } from '../../organisations/index.js';
import { AccessDenied, AssentError } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import { pageLimit } from '../../platform/http/pagination.js';
import { HISTORY_PAGE, principalOf } from '../dashboard/views.js';
import { type FormRefusal, fieldNamedIn, type RefusedForm, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { IndividualPage } from './individual.js';
import { IndividualsPage } from './individuals.js';
import { session, signedIn } from './routes.js';
import { AddForm, Confirmed, IndividualQuery, IndividualsQuery, Org, OrgUser } from './schemas.js';

/** What the console's individuals pages call. */
export interface ConsoleIndividualsDeps {
  individuals: IndividualService;
  consents: ConsentService;
  history: HistoryService;
  purposes: PurposeService;
}

const DONE: Record<string, string> = {
  added:
    'Individual added. A new account is subscribed at once; an address that already has an account is ' +
    'mailed an invitation instead, and its holder appears here once they accept it.',
  removed: 'Individual unsubscribed. Their consent record and its history are kept.',
};

/** @param opts - the services. */
export const consoleIndividualsRoutes: FastifyPluginAsyncTypebox<ConsoleIndividualsDeps> = async (app, deps) => {
  app.get('/console/:organizationID/individuals', {
    config: { operation: 'web.console.individuals', ...signedIn, api: 'individuals.list' },
    schema: { params: Org, querystring: IndividualsQuery },
    handler: async (req, reply) => sendPage(reply, await listPage(deps, req, req.query)),
  });

  app.post('/console/:organizationID/individuals', {
    config: {
      operation: 'web.console.individuals.add',
      ...signedIn,
      api: 'individuals.list',
      refused: addRefused(deps),
    },
    schema: { params: Org, body: AddForm },
    handler: async (req, reply) => {
      const { username, name, email, phone, password } = req.body;
      // An empty password field means none: the new user cannot sign in with a password (as the API's absent field).
      const input = { username, name, email, phone, password: password === '' ? undefined : password };
      await deps.individuals.add(principalOf(session(req)), req.params.organizationID, input, req.log);
      // To the list, not the individual's page: an address that has an account is invited, not
      // subscribed, and the page would tell the two apart (docs/consents.md "Adding individuals").
      return seeOther(reply, `/console/${req.params.organizationID}/individuals?done=added`, false);
    },
  });

  app.get('/console/:organizationID/individuals/:userID', {
    config: { operation: 'web.console.individual', ...signedIn, api: 'individuals.list' },
    schema: { params: OrgUser, querystring: IndividualQuery },
    handler: async (req, reply) => {
      const path = { orgId: req.params.organizationID, userId: req.params.userID };
      const principal = principalOf(session(req));
      const limit = req.query.limit === undefined ? HISTORY_PAGE : pageLimit(req.query.limit);
      // The consent service decides, as for `consents.read`: a role it refuses is a 403 page.
      const record = deps.consents.recordBody(await deps.consents.read(principal, path), true);
      const [org, individual, history] = await Promise.all([
        deps.purposes.organisation(path.orgId),
        deps.individuals.get(path.orgId, path.userId),
        historyPage(deps, principal, path, req.query.startid, limit),
      ]);
      const props = {
        orgId: path.orgId,
        orgName: org.Name,
        roles: req.webRoles,
        csrfToken: session(req).csrfToken,
        individual,
        record,
        history,
        limit: req.query.limit,
        done: DONE[req.query.done ?? ''],
      };
      return sendPage(reply, IndividualPage(props));
    },
  });

  app.post('/console/:organizationID/individuals/:userID/remove', {
    config: { operation: 'web.console.individuals.remove', ...signedIn, api: 'individuals.remove' },
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes.
    schema: { params: OrgUser, body: Confirmed },
    handler: async (req, reply) => {
      await deps.individuals.remove(principalOf(session(req)), req.params.organizationID, req.params.userID);
      return seeOther(reply, `/console/${req.params.organizationID}/individuals?done=removed`, false);
    },
  });
};

/** The add form's fields, as the service's messages name them ('username' before 'name'). */
const ADD_FIELDS = ['username', 'email', 'phone', 'password', 'name'] as const;
type ListRequest = FastifyRequest<{ Params: { organizationID: string } }>;

/** The list again with the add form as typed (never the password) and the error by its field. */
function addRefused(deps: ConsoleIndividualsDeps): FormRefusal {
  return async (req, reply, error) => {
    const fieldOf = (m: string) => (error instanceof PasswordPolicyError ? 'password' : fieldNamedIn(m, ADD_FIELDS));
    const refused = refusedForm(error, req.body, ['password'], fieldOf);
    if (!refused) return null;
    const page = await listPage(deps, req as ListRequest, {}, refused);
    return sendPage(reply, page, error instanceof AssentError ? httpStatusOf(error) : 400);
  };
}

/**
 * The individuals list page: one keyset page of the search, the count, and the add form (as refused, if given).
 * @param query - the list's query (`limit`, `startid`, `search`, `done`), checked by the route's schema.
 */
async function listPage(
  deps: ConsoleIndividualsDeps,
  req: ListRequest,
  query: { limit?: string; startid?: string; search?: string; done?: string },
  refused?: RefusedForm,
) {
  const orgId = req.params.organizationID;
  const limit = pageLimit(query.limit);
  const search = query.search?.trim() ?? '';
  const [org, page, count] = await Promise.all([
    deps.purposes.organisation(orgId),
    deps.individuals.page(orgId, query.startid, limit, search),
    deps.individuals.count(orgId),
  ]);
  return IndividualsPage({
    orgId,
    orgName: org.Name,
    roles: req.webRoles,
    csrfToken: session(req).csrfToken,
    ...page,
    count,
    search,
    limit: query.limit,
    canAdd: managesIndividuals(req.webRoles),
    done: DONE[query.done ?? ''],
    refused,
  });
}

/**
 * A page of the individual's consent history, newest first, when the consent service lets the
 * caller read it (`consents.history.list`: the Dpo); null when it refuses the caller's roles.
 */
async function historyPage(
  deps: ConsoleIndividualsDeps,
  principal: Principal,
  path: { orgId: string; userId: string },
  startId: string | undefined,
  limit: number,
) {
  try {
    const { record } = await deps.consents.open(principal, path, 'history');
    return await deps.history.page(record, { startId }, limit);
  } catch (err) {
    if (err instanceof AccessDenied) return null;
    throw err;
  }
}
