// A tiny bundle registry on the node's own listener, so the sim's URL works as
// CALIMERO_REGISTRY_URL: bundle metadata for the versions each sample offers, and the artifacts.

import { findSample, type SampleApp, samplePackage } from "../apps/mod.ts";
import { buildApp } from "../install.ts";
import { bare, json } from "../http.ts";
import type { Route } from "../router.ts";

function registered(pkg: string, version: string): SampleApp | undefined {
  const sample = findSample(pkg);
  return sample && pkg === samplePackage(sample.name) && sample.versions.includes(version)
    ? sample
    : undefined;
}

/** The registry routes. */
export const registryRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/bundles/:pkg/:ver",
    handler: ({ params, url }) => {
      const sample = registered(params.pkg, params.ver);
      if (!sample) return bare(404);
      const app = buildApp(sample.build({ version: params.ver }));
      const pkg = samplePackage(sample.name);
      const base = url.pathname.slice(0, url.pathname.indexOf("/api/v2/bundles/"));
      return json({
        package: pkg,
        version: params.ver,
        signerId: app.signerId,
        metadata: JSON.parse(new TextDecoder().decode(app.metadata) || "{}"),
        services: app.hasServices ? app.units.map((u) => u.service) : [],
        artifact: `${url.origin}${base}/artifacts/${pkg}/${params.ver}/${pkg}-${params.ver}.mpk`,
      });
    },
  },
  {
    method: "GET",
    pattern: "/artifacts/:pkg/:ver/:file",
    handler: ({ params }) => {
      const sample = registered(params.pkg, params.ver);
      if (!sample || params.file !== `${params.pkg}-${params.ver}.mpk`) return bare(404);
      const app = buildApp({ ...sample.build({ version: params.ver }), bundle: true });
      return new Response(app.archive! as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "application/octet-stream" },
      });
    },
  },
];
