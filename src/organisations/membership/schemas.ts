/** TypeBox schemas of the organisation routes: the admin roles (docs/api.md). */
import { Type } from 'typebox';

/** The answer of `GET {base}/organizations/roles`: each role's numeric ID and name. */
export const RolesResponse = Type.Object({
  Roles: Type.Array(Type.Object({ ID: Type.Integer(), Role: Type.String() })),
});
