// The blobs toolset: installing and removing apps, and the node's blobs; the tools in listing order, each defined
// in a file of related tools beside this one.

import type { Tool } from "../tool.ts";
import type { ToolDeps } from "../deps.ts";
import { installApplication, uninstallApplication } from "./install.ts";
import { deleteBlob, listBlobs, uploadBlob } from "./blobs.ts";

/** The blobs tools, in listing order. */
export function blobTools(deps: ToolDeps): Tool[] {
  return [
    installApplication(deps),
    uninstallApplication(deps),
    uploadBlob(deps),
    listBlobs(deps),
    deleteBlob(deps),
  ];
}
