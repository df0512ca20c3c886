// detectLang names a language other than English only on clear evidence. Short English questions
// were Portuguese ("do" and "a" are Portuguese stop words, only "do" an English one), small
// English tables Portuguese or Spanish, and "x\u0000y" Spanish ("y").
import { describe, expect, test } from "bun:test";
import { detectLang } from "../../src/models/lang.ts";
import { notFoundMessage, summaryTitle } from "../../src/models/lang.ts";

const detected = (texts: string[]) => texts.map(detectLang);

describe("weak evidence is English", () => {
  test("short English questions", () => {
    const qs = ["Do I need a receipt?", "Do taxis need a receipt?", "Can I bring a dog to the office?", "Is a car allowed in the garden?", "Who is the man in charge?"];
    expect(detected(qs)).toEqual(qs.map(() => "en"));
  });

  test("garbage, numbers and lone foreign stop words", () => {
    expect(detected(["x\u0000y", "12345 !!!", "", "e.g. x", "de la"])).toEqual(["en", "en", "en", "en", "en"]);
  });

  test("small English tables and JSON with Portuguese and Spanish names", () => {
    const csv = "name,city,qty\nAna,Porto,3\nRui,Lisboa,5\nJose,Sevilla,2\n";
    const table = "| name | city |\n| --- | --- |\n| Ana da Silva | Porto |\n| Rui | Lisboa |";
    const json = '{"name": "a", "price": 3, "city": "Sao Paulo", "date": "2024-01-01"}';
    expect(detected([csv, table, json])).toEqual(["en", "en", "en"]);
  });
});

describe("clear evidence names the language", () => {
  test("sentences in each supported language", () => {
    expect(detected([
      "The quick brown fox jumps over the lazy dog and runs to the forest.",
      "Le chat est sur la table et il dort dans la cuisine.",
      "Der Hund ist nicht in dem Haus, er spielt mit den Kindern.",
      "El perro está en la casa y juega con los niños del barrio.",
      "Il gatto della nonna dorme sul divano e non vuole giocare con il cane.",
      "O gato da avó não quer brincar com o cachorro no jardim.",
      "De hond speelt met de kinderen in het park en is niet moe.",
    ])).toEqual(["en", "fr", "de", "es", "it", "pt", "nl"]);
  });

  test("short questions with two or more words of their own language", () => {
    expect(detected([
      "quelle est la question", "Où est la gare ?", "Wo ist der Bahnhof?", "¿Dónde está la estación?",
      "Dove è la stazione?", "Qual é o prazo do seguro?", "Waar is het station?",
    ])).toEqual(["fr", "fr", "de", "es", "it", "pt", "nl"]);
  });

  test("a Portuguese question is still Portuguese beside the English words it shares", () => {
    // "do" and "a" count for neither language; "qual", "o", "e" and "nao" are Portuguese only.
    expect(detectLang("Qual é o valor do recibo e não a taxa?")).toEqual("pt");
  });
});

describe("Cyrillic", () => {
  test("Russian is told by its script; it keeps the English canned texts", () => {
    expect(detectLang("Сколько стоит парковка в месяц?")).toEqual("ru");
    expect([notFoundMessage("ru"), summaryTitle("ru")]).toEqual([notFoundMessage("en"), "Summary"]);
  });

  test("Cyrillic with letters Russian does not use is not named (Ukrainian here)", () => {
    expect(detectLang("Скільки коштує паркування на місяць?")).toEqual("en");
  });

  test("a few Cyrillic letters in Latin text do not make it Russian", () => {
    expect(detectLang("The model Т-34 is in the museum of the city.")).toEqual("en");
  });
});
