"""The page languages acap ships, and the bundled example's texts in each of them.

The translations are of what the example's personEntry page shows (the names
and ``forPeople`` texts of the skills asked there, the staff skill, the hours
and the address), written for the people who read the page: a bereaved family.
"""

from __future__ import annotations

import copy
from typing import Any

from support.pages import example_data
from support.paths import SRC

WORDS = SRC / "templates" / "words"


def shipped_languages() -> list[str]:
    """The tags of acap's own words files (``en``, ``fr``, ``de`` ...), English first."""
    tags = sorted(p.stem for p in WORDS.glob("*.yaml"))
    return ["en"] + [t for t in tags if t != "en"]


def _block(hours: str, address: str, pricing: tuple[str, str], booking: tuple[str, str],
           staff: tuple[str, str]) -> dict[str, Any]:
    return {"hours": hours, "address": address, "skills": {
        "service-pricing": {"name": pricing[0], "forPeople": pricing[1]},
        "arrangement-booking": {"name": booking[0], "forPeople": booking[1]},
        "speak-to-staff": {"name": staff[0], "description": staff[1]}}}


#: The example's page texts, by language (English is operator.yaml's own).
TRANSLATIONS: dict[str, dict[str, Any]] = {
    "fr": _block(
        "Du lundi au vendredi, de 9 h à 17 h",
        "1 Example Street, Exampleton EX1 1AA, Royaume-Uni",
        ("Coût des services", "Ce que coûte chacun de nos services, et ce qu’il comprend. "
                              "Nous en parlons avec vous, à votre rythme."),
        ("Prendre rendez-vous", "Un moment avec l’un de nos conseillers funéraires pour "
                                "préparer ensemble les obsèques. Rien n’est réservé sans "
                                "votre accord."),
        ("Parler à un membre du personnel", "Un conseiller funéraire vous répond ou vous "
                                            "rappelle, du lundi au vendredi de 9 h à 17 h, "
                                            "en anglais.")),
    "de": _block(
        "Montag bis Freitag, 9 bis 17 Uhr",
        "1 Example Street, Exampleton EX1 1AA, Vereinigtes Königreich",
        ("Kosten unserer Leistungen", "Was jede unserer Leistungen kostet und was dazugehört. "
                                      "Wir gehen alles in Ruhe mit Ihnen durch, in Ihrem "
                                      "Tempo."),
        ("Ein Vorbereitungsgespräch vereinbaren",
         "Ein Termin, an dem Sie mit einem unserer Bestatter die Trauerfeier in Ruhe planen. "
         "Wir finden eine Zeit, die Ihnen passt; festgelegt wird erst, wenn Sie zustimmen."),
        ("Mit unserem Team sprechen", "Wir verbinden Sie mit einem unserer Bestatter oder "
                                      "rufen Sie zurück, montags bis freitags von 9 bis "
                                      "17 Uhr, auf Englisch.")),
    "ca": _block(
        "De dilluns a divendres, de 9.00 a 17.00 h",
        "1 Example Street, Exampleton EX1 1AA, Regne Unit",
        ("Preu dels nostres serveis", "El que costa cadascun dels nostres serveis i el que "
                                      "inclou. Ho repassem amb vostè, sense presses."),
        ("Concertar una reunió", "Un moment per seure amb un dels nostres assessors funeraris "
                                 "i organitzar junts el comiat. Busquem l'hora que millor "
                                 "li vagi; no es reserva res fins que vostè ho confirmi."),
        ("Parlar amb el nostre equip", "El passem amb un assessor funerari o li tornem la "
                                       "trucada, de dilluns a divendres de 9.00 a 17.00 h, "
                                       "en anglès.")),
    "es": _block(
        "De lunes a viernes, de 9:00 a 17:00",
        "1 Example Street, Exampleton EX1 1AA, Reino Unido",
        ("Precio de nuestros servicios", "Lo que cuesta cada uno de nuestros servicios y lo "
                                         "que incluye. Lo repasamos con usted, sin prisas."),
        ("Concertar una reunión", "Un momento para sentarse con uno de nuestros asesores "
                                  "funerarios y organizar juntos la despedida. Buscamos la "
                                  "hora que mejor le venga; no se reserva nada hasta que "
                                  "usted lo confirme."),
        ("Hablar con nuestro equipo", "Le pasamos con un asesor funerario o le devolvemos la "
                                      "llamada, de lunes a viernes de 9:00 a 17:00, en "
                                      "inglés.")),
    "it": _block(
        "Dal lunedì al venerdì, dalle 9:00 alle 17:00",
        "1 Example Street, Exampleton EX1 1AA, Regno Unito",
        ("Costi dei servizi", "Quanto costa ciascuno dei nostri servizi e che cosa comprende. "
                              "Ne parliamo insieme, con calma e con i suoi tempi."),
        ("Fissare un incontro", "Un momento con uno dei nostri impresari per organizzare "
                                "insieme il funerale. Troviamo l’orario più adatto a lei; "
                                "nulla viene prenotato senza il suo consenso."),
        ("Parlare con il nostro personale", "La mettiamo in contatto con un nostro "
                                            "impresario, o la richiamiamo, dal lunedì al "
                                            "venerdì dalle 9:00 alle 17:00, in inglese.")),
    "nl": _block(
        "Maandag tot en met vrijdag, 9.00 tot 17.00 uur",
        "1 Example Street, Exampleton EX1 1AA, Verenigd Koninkrijk",
        ("Kosten van onze diensten", "Wat elk van onze diensten kost en wat erbij hoort. We "
                                     "lopen het rustig met u door, in uw eigen tempo."),
        ("Een gesprek over de uitvaart plannen",
         "Een moment om met een van onze uitvaartverzorgers samen de uitvaart voor te "
         "bereiden. We zoeken een tijd die u schikt; er wordt niets vastgelegd voordat u ja "
         "zegt."),
        ("Spreken met een medewerker", "We verbinden u door met een uitvaartverzorger of "
                                       "bellen u terug, maandag tot en met vrijdag van 9.00 "
                                       "tot 17.00 uur, in het Engels.")),
    "pt": _block(
        "De segunda a sexta, das 9h às 17h",
        "1 Example Street, Exampleton EX1 1AA, Reino Unido",
        ("Valores dos nossos serviços", "Quanto custa cada um dos nossos serviços e o que "
                                        "está incluído. Conversamos sobre isso com você, no "
                                        "seu tempo."),
        ("Marcar uma conversa", "Um momento com um dos nossos agentes funerários para "
                                "planejar juntos a cerimônia. Encontramos um horário que "
                                "seja bom para você; nada é reservado até que você "
                                "concorde."),
        ("Falar com a nossa equipe", "Transferimos você para um agente funerário ou "
                                     "retornamos a ligação, de segunda a sexta, das 9h às "
                                     "17h, em inglês.")),
    "pt-PT": _block(
        "De segunda a sexta-feira, das 9h às 17h",
        "1 Example Street, Exampleton EX1 1AA, Reino Unido",
        ("Preços dos nossos serviços", "Quanto custa cada um dos nossos serviços e o que "
                                       "inclui. Falamos sobre isso consigo, ao seu ritmo."),
        ("Marcar uma reunião", "Um momento com um dos nossos agentes funerários para "
                               "prepararem juntos o funeral. Encontramos uma hora que lhe "
                               "convenha; nada fica marcado sem o seu acordo."),
        ("Falar com a nossa equipa", "Passamos a chamada a um agente funerário ou ligamos-lhe "
                                     "de volta, de segunda a sexta-feira, das 9h às 17h, em "
                                     "inglês.")),
}


def example_in(lang: str) -> dict[str, Any]:
    """The bundled example written in ``lang``: its page texts in that language, which
    is the first of ``page.languages``, with English as the second (translated back
    from operator.yaml's own texts). ``example_in("en")`` is the example with every
    other shipped language after English."""
    data = example_data()
    if lang == "en":
        others = [t for t in shipped_languages() if t != "en"]
        data["page"] = {"languages": ["en", *others],
                        "translations": {t: TRANSLATIONS[t] for t in others}}
        return data
    english = _english(data)
    tr = TRANSLATIONS[lang]
    data["contact"]["hours"] = tr["hours"]
    data["contact"]["address"] = tr["address"]
    for s in data["skills"]:
        for key, value in tr["skills"].get(s["id"], {}).items():
            s[key] = value
    data["contact"]["languages"] = [lang.split("-")[0], "en"]
    data["page"] = {"languages": [lang, "en"], "translations": {"en": english}}
    return data


def _english(data: dict[str, Any]) -> dict[str, Any]:
    skills = {s["id"]: {k: s[k] for k in ("name", "forPeople", "description") if k in s}
              for s in data["skills"] if s["id"] in TRANSLATIONS["fr"]["skills"]}
    for block in skills.values():  # the page shows forPeople, else the description
        if "forPeople" in block:
            block.pop("description")
    return copy.deepcopy({"hours": data["contact"]["hours"], "address": data["contact"]["address"],
                          "skills": skills})
