import { describe, expect, test } from "bun:test";
import { createBuiltinEmbedder, cosine, hashEmbed } from "../../src/models/builtin-embed.ts";
import { createBuiltinAnswerer } from "../../src/models/builtin-answer.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { createBuiltinReranker } from "../../src/models/builtin-rerank.ts";
import { approxTokenCount } from "../../src/models/builtin-tokens.ts";
import { detectLang } from "../../src/models/lang.ts";
import { sentences } from "../../src/models/text.ts";
import type { AnswerRequest, Passage } from "../../src/models/types.ts";

const PASSAGES: Passage[] = [
  {
    ref: 1,
    text:
      "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. " +
      "It was designed by the engineering company of Gustave Eiffel and built between 1887 and 1889. " +
      "The tower is 330 metres tall, about the same height as an 81-storey building.",
  },
  {
    ref: 2,
    text:
      "Photosynthesis is the process by which green plants convert light energy into chemical energy. " +
      "It takes place mainly in the chloroplasts of leaf cells. Oxygen is released as a by-product.",
  },
  {
    ref: 3,
    text:
      "Employees accrue 25 days of paid annual leave per calendar year. Unused leave may be carried over " +
      "until 31 March of the following year. Requests must be approved by the line manager.",
  },
];

function req(question: string, lang = "en", passages = PASSAGES): AnswerRequest {
  return { question, lang, system: "", history: [], passages };
}

describe("builtin-hash-embed", () => {
  test("is deterministic, L2-normalised and 384-dimensional", async () => {
    const e = createBuiltinEmbedder();
    const [a, b] = await e.embed(["Hello world", "Hello world"], "passage");
    expect(e.dims).toBe(384);
    expect(a!.length).toBe(384);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    const norm = Math.sqrt(a!.reduce((s, x) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 5);
  });

  test("a paraphrase is closer than an unrelated sentence", () => {
    const q = hashEmbed("How many days of paid leave do employees get each year?");
    const para = hashEmbed("Employees accrue 25 days of paid annual leave per calendar year.");
    const unrelated = hashEmbed("Photosynthesis converts light energy into chemical energy in plants.");
    expect(cosine(q, para)).toBeGreaterThan(cosine(q, unrelated) + 0.1);
  });

  test("folds accents and survives inflection across languages", () => {
    const a = hashEmbed("les congés payés des employés");
    const b = hashEmbed("congé payé employé");
    const c = hashEmbed("la tour Eiffel à Paris");
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.1);
  });

  test("empty text embeds to the zero vector rather than NaN", () => {
    const v = hashEmbed("");
    expect(v.every((x) => x === 0)).toBe(true);
  });
});

describe("builtin-extractive answerer", () => {
  const answerer = createBuiltinAnswerer();

  test("quotes the right sentence verbatim and cites its passage", async () => {
    const r = await answerer.answer(req("How tall is the Eiffel Tower?"));
    expect(r.answered).toBe(true);
    expect(r.cited).toEqual([1]);
    expect(r.text).toContain("The tower is 330 metres tall, about the same height as an 81-storey building.");
    expect(r.text).toMatch(/\[1\]$/);
    expect(r.model).toBe("builtin-extractive");
    expect(r.promptTokens).toBeGreaterThan(0);
    expect(r.completionTokens).toBeGreaterThan(0);
  });

  test("answers about another passage with that passage's ref", async () => {
    const r = await answerer.answer(req("Until when can unused leave be carried over?"));
    expect(r.cited).toEqual([3]);
    expect(r.text).toContain("Unused leave may be carried over until 31 March of the following year.");
  });

  test("a section heading is not quoted as a sentence", async () => {
    const r = await answerer.answer({
      question: "How many days of paid leave do employees get?",
      lang: "en",
      system: "",
      history: [],
      passages: [{ ref: 1, text: "Leave policy\n\nEmployees get 25 days of paid leave per year." }],
    });
    expect(r.text).toBe("Employees get 25 days of paid leave per year. [1]");
  });

  test("says plainly that the documents do not answer an unrelated question", async () => {
    const r = await answerer.answer(req("What is the recipe for sourdough bread?"));
    expect(r).toMatchObject({ answered: false, cited: [], text: "The documents do not contain the answer to this question." });
  });

  test("works in French, and says 'not found' in French", async () => {
    const fr: Passage[] = [
      { ref: 1, text: "La Loire est le plus long fleuve de France. Elle mesure 1 006 kilomètres et se jette dans l'océan Atlantique." },
      { ref: 2, text: "Le télétravail est autorisé deux jours par semaine. Les salariés doivent en informer leur responsable." },
    ];
    const r = await answerer.answer(req("Combien de jours de télétravail sont autorisés par semaine ?", "fr", fr));
    expect(r.answered).toBe(true);
    expect(r.cited).toEqual([2]);
    expect(r.text).toContain("Le télétravail est autorisé deux jours par semaine.");
    const none = await answerer.answer(req("Quelle est la capitale du Japon ?", "fr", fr));
    expect(none).toMatchObject({ answered: false, cited: [], text: "Les documents ne contiennent pas la réponse à cette question." });
  });

  test("not-found message in German and Spanish", async () => {
    expect((await answerer.answer(req("Wie backt man Brot?", "de"))).text).toBe("Die Dokumente enthalten keine Antwort auf diese Frage.");
    expect((await answerer.answer(req("¿Cómo se hace el pan?", "es"))).text).toBe("Los documentos no contienen la respuesta a esta pregunta.");
  });

  test("streams the answer through onToken and the pieces rebuild the text", async () => {
    const pieces: string[] = [];
    const r = await answerer.answer({ ...req("Who designed the Eiffel Tower?"), onToken: (t) => pieces.push(t) });
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe(r.text);
    expect(r.text).toContain("Gustave Eiffel");
  });

  test("no passages means not answered", async () => {
    const r = await answerer.answer(req("How tall is the Eiffel Tower?", "en", []));
    expect(r.answered).toBe(false);
  });
});

describe("builtin summariser, reranker, tokens, lang", () => {
  test("summary is a titled bullet list of verbatim sentences, heading per language", async () => {
    const md = "# Leave policy\n\n" + PASSAGES.map((p) => p.text).join("\n\n");
    const s = await createBuiltinSummariser().summarise(md, "en");
    const lines = s.text.trim().split("\n");
    expect(lines[0]).toBe("## Summary");
    const bullets = lines.filter((l) => l.startsWith("- "));
    expect(bullets.length).toBeGreaterThanOrEqual(3);
    for (const b of bullets) expect(md.replace(/\n/g, " ")).toContain(b.slice(2));
    expect(bullets[0]).toBe("- The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris.");
    const fr = await createBuiltinSummariser().summarise("Le télétravail est autorisé deux jours par semaine dans l'entreprise.", "fr");
    expect(fr.text.split("\n")[0]).toBe("## Résumé");
  });

  test("lexical reranker puts the relevant passage first", async () => {
    const scores = await createBuiltinReranker().rerank("chloroplasts light energy", PASSAGES.map((p) => p.text));
    expect(scores.length).toBe(3);
    expect(scores.indexOf(Math.max(...scores))).toBe(1);
  });

  test("approximate token count", () => {
    expect(approxTokenCount("")).toBe(0);
    expect(approxTokenCount("Hello, world!")).toBe(2 + 2 + 1 + 1); // hell|o , worl|d !
    expect(approxTokenCount("a b c")).toBe(3);
  });

  test("detectLang on real sentences, en fallback", () => {
    expect(detectLang("The quick brown fox jumps over the lazy dog and runs to the forest.")).toBe("en");
    expect(detectLang("Le chat est sur la table et il dort dans la cuisine.")).toBe("fr");
    expect(detectLang("Der Hund ist nicht in dem Haus, er spielt mit den Kindern.")).toBe("de");
    expect(detectLang("El perro está en la casa y juega con los niños del barrio.")).toBe("es");
    expect(detectLang("Il gatto della nonna dorme sul divano e non vuole giocare con il cane.")).toBe("it");
    expect(detectLang("O gato da avó não quer brincar com o cachorro no jardim.")).toBe("pt");
    expect(detectLang("De hond speelt met de kinderen in het park en is niet moe.")).toBe("nl");
    expect(detectLang("12345 !!!")).toBe("en");
  });

  test("sentence splitter keeps abbreviations and decimals", () => {
    expect(sentences("Dr. Smith paid 3.5 euros, e.g. for coffee. Then he left!\n\nNew block here")).toEqual([
      "Dr. Smith paid 3.5 euros, e.g. for coffee.",
      "Then he left!",
      "New block here",
    ]);
  });
});
