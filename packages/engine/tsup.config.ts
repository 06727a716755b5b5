import { genvideoBuild } from "../../tsup.shared.ts";

export default genvideoBuild();
