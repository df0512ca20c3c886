// The built-in summary of a library manual (libtasn1's, as pdf.js reads it) listed its functions as
// "asn1createelement" and its parameters as "sourcename": stripping emphasis marks took every
// underscore, also those inside a word, which CommonMark never reads as emphasis.
import { expect, test } from "bun:test";
import { extractiveSummary, stripMarkdown } from "../../src/models/builtin-summary.ts";

test("snake_case identifiers keep their underscores in the summary", () => {
  const md = [
    "# Library notes",
    "",
    "The header file of this library is libtasn1.h and the main type used in it is asn1_node.",
    "",
    "The function asn1_create_element creates a structure whose type is named by source_name.",
    "",
    "Call asn1_delete_structure when the element is no longer needed by the program.",
  ].join("\n");
  expect(extractiveSummary(md, "en").text).toBe(
    "## Summary\n\n" +
      "- The header file of this library is libtasn1.h and the main type used in it is asn1_node.\n" +
      "- The function asn1_create_element creates a structure whose type is named by source_name.\n" +
      "- Call asn1_delete_structure when the element is no longer needed by the program.\n",
  );
});

test("emphasis marks still go, underscores and stars alike, and digits count as word characters", () => {
  expect(stripMarkdown("Use _only_ the __bold__ and *starred* `code` words.")).toBe("Use only the bold and starred code words.");
  expect(stripMarkdown("A *pointer* to MAX_SIZE_2 and v1_0_3, but not _x_.")).toBe("A pointer to MAX_SIZE_2 and v1_0_3, but not x.");
  expect(stripMarkdown("Names: état_civil, naïve_bayes.")).toBe("Names: état_civil, naïve_bayes.");
});
