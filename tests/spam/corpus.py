"""A labelled set of realistic school-website comments, generated: ham and spam in several languages.

Ham: parents, pupils, staff and alumni commenting on news posts (trips, sports day, concerts,
closures, uniforms, lunches, exams, fundraisers), in English, French, Spanish, German and
Polish, some with a link to the school's own pages. Spam: pharmacy, replica goods, SEO and
backlink offers, essay mills, crypto and loan scams, dating and casino spam, in English,
Russian, Chinese, Spanish, French and German, with or without links.

`generate(count, seed)` is deterministic: the same seed gives the same set, so the quality
figures are reproducible. Each item: {"content", "author", "email", "url", "ip", "label"}.
"""

from __future__ import annotations

import random

FIRST = ["Sarah", "James", "Aisha", "Tom", "Priya", "Mohammed", "Emma", "Oliver", "Zofia", "Lucas", "Chloe", "Daniel",
         "Fatima", "Grace", "Ben", "Marta", "Hannah", "Kwame", "Sophie", "Liam", "Amelia", "Jakub", "Noor", "Isla",
         "Carlos", "Elena", "Yusuf", "Ruby", "Mei", "Aarav", "Julia", "Pierre", "Ana", "Katarzyna", "Lena", "Hugo"]
LAST = ["Thompson", "Khan", "Nowak", "Okafor", "Smith", "Garcia", "Müller", "Dubois", "Patel", "Jones", "Kowalski",
        "Brown", "Ahmed", "Martin", "Wilson", "Rossi", "Schmidt", "Lopez", "Evans", "Chen", "Singh", "Taylor"]
MAIL = ["gmail.com", "outlook.com", "yahoo.co.uk", "icloud.com", "hotmail.com", "btinternet.com", "web.de",
        "orange.fr", "wp.pl", "riverside-school.example"]

EVENTS = ["sports day", "the Year 6 trip", "the summer fair", "the spring concert", "the science week",
          "the nativity play", "the book fair", "parents' evening", "the Year 4 residential", "the charity run",
          "the art exhibition", "world book day", "the swimming gala", "the school disco", "the maths challenge",
          "the harvest festival", "the sponsored walk", "the choir performance", "the robotics club showcase"]
THINGS = ["PE kit", "the new uniform", "school dinners", "the reading records", "homework club",
          "the after-school club", "the lost property box", "the packed lunch policy", "the bus timetable",
          "the online learning platform", "the library books", "the permission slips", "the vaccination forms"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "next week", "tomorrow", "after half term"]
TEACHERS = ["Mrs Patel", "Mr Jones", "Miss Wilson", "Mr Okafor", "Ms Garcia", "Mrs Evans", "Mr Chen", "Mrs Nowak"]
CLASSES = ["Year 1", "Year 2", "Year 3", "Year 4", "Year 5", "Year 6", "Reception", "Oak class", "Maple class"]

HAM_EN = [
    "Thank you so much to {teacher} and all the staff for organising {event}, {child} had a wonderful time!",
    "What time does {event} start on {day}? We would like to come and watch.",
    "Will {class_} need {thing} on {day}? {child} is not sure.",
    "Lovely photos, it looks like everyone enjoyed {event}. Well done to {class_}!",
    "Is there any update on {thing}? I could not find the letter on the website.",
    "Just a quick question: do the children need a packed lunch for {event}?",
    "{child} came home so excited about {event}. Thank you {teacher}!",
    "Could you please confirm whether {thing} is still required this term?",
    "Congratulations to all the pupils who took part in {event}, a fantastic effort.",
    "We have lost a blue jumper with the name {child} in it, has anyone seen it near {thing}?",
    "As a governor I want to thank the PTA for all their hard work on {event}.",
    "I was a pupil here in the nineties and it is great to see {event} is still going!",
    "Our class really enjoyed {event}, my favourite part was the end. From {child} in {class_}.",
    "Please can someone check the date for {event}, the calendar says {day} but the letter says otherwise.",
    "Reminder to parents in {class_}: {thing} needs to be returned by {day}. Thanks, {teacher}.",
    "Brilliant work everyone! {event} raised more money than last year.",
    "Is the school open as normal on {day}? The weather forecast looks terrible.",
    "My son has a hospital appointment on {day}, who should I tell about missing {event}?",
    "Thanks for the update about {thing}. The details are also on the school website: {school_link}",
    "Well done {class_}, the assembly was lovely and very moving.",
    "The sign-up sheet for {event} is here {school_link} if anyone missed it.",
    "Can grandparents also attend {event}? {child}'s nan would love to come.",
    "Sorry we missed {event}, {child} was unwell. Will there be photos?",
    "Please remember sun cream and a hat for {event} on {day}!",
    "I found the information about {thing} really helpful, thank you for explaining it so clearly.",
    # harder ham: money, free offers and outside links, as real parents write them
    "The PTA raised £{amount} at {event} for new library books, thank you to everyone who donated!",
    "Here is the video of {event} for those who missed it: https://www.youtube.com/watch?v={video}",
    "Free tickets for {event} are available from the school office until {day}.",
    "Does anyone have a spare {thing}? Happy to pay, {child} has grown out of theirs.",
    "The council's page about school buses is here https://www.{council}.gov.uk/school-transport",
    "Great news, congratulations! {child} won a prize at {event} :)",
    "Nice post, thanks for sharing the photos of {event}.",
]
HAM_OTHER = [
    "Merci beaucoup pour {event_fr}, les enfants ont adoré ! Bravo à toute l'équipe.",
    "Bonjour, à quelle heure commence {event_fr} {day_fr} ? Nous aimerions venir.",
    "Muchas gracias a {teacher} por organizar {event_es}, mi hija lo pasó genial.",
    "¿A qué hora empieza {event_es} el {day_es}? Queremos ir a verlo.",
    "Vielen Dank an alle Lehrer für {event_de}, unser Sohn war begeistert!",
    "Wann beginnt {event_de} am {day_de}? Dürfen Großeltern auch kommen?",
    "Dziękujemy bardzo za {event_pl}, dzieci były zachwycone. Pozdrawiamy!",
    "O której godzinie zaczyna się {event_pl} w {day_pl}? Chcielibyśmy przyjść.",
]
EVENTS_FR = ["la fête de l'école", "la sortie scolaire", "le concert de printemps", "la journée sportive"]
EVENTS_ES = ["la fiesta del colegio", "la excursión", "el concierto de primavera", "el día del deporte"]
EVENTS_DE = ["das Schulfest", "den Ausflug", "das Frühlingskonzert", "das Sportfest"]
EVENTS_PL = ["festyn szkolny", "wycieczkę", "koncert wiosenny", "dzień sportu"]
DAYS_FR = ["lundi", "mardi", "mercredi", "jeudi", "vendredi"]
DAYS_ES = ["lunes", "martes", "miércoles", "jueves", "viernes"]
DAYS_DE = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag"]
DAYS_PL = ["poniedziałek", "wtorek", "środę", "czwartek", "piątek"]

SPAM_EN = [
    "Buy {drug} online without prescription, cheapest prices guaranteed! {link}",
    "{drug} {dose} for only ${price}. Fast discreet shipping worldwide. Order now {link}",
    "Great post! I will bookmark it. Check out my site about {seo_topic} {link}",
    "I really like your blog. We offer high quality backlinks and guest posts to boost your SEO rankings. {link}",
    "Get your website on the first page of Google in {number} days! Affordable SEO packages {link}",
    "Need help with your essay? Professional writers, plagiarism free, {number}% discount today {link}",
    "Earn ${price} per day working from home, no experience needed!!! {link}",
    "Invest in {coin} now and double your money in {number} days. Guaranteed returns {link}",
    "Congratulations! You have been selected to receive a ${price} gift card. Claim here {link}",
    "Hot singles in your area want to meet you tonight {link}",
    "Best online casino bonus, {number} free spins, win real money now {link}",
    "Quick loans approved in minutes, bad credit OK, up to ${price} {link} {link2}",
    "Replica {brand} watches and handbags at {number}% off. Top quality {link}",
    "Dear friend, I am a banker with an unclaimed fund of ${price} million, contact me urgently at {mail}",
    "Lose {number} pounds in {number2} days with this one weird trick doctors hate {link}",
    "Nice article, very informative. Visit {link} for the best {seo_topic} deals. {link2}",
    "Cheap {drug} and {drug2} no rx needed, fast delivery, best price online {link} {link2} {link3}",
    "Your account has been suspended, verify your details immediately at {link}",
    "We can increase your Instagram followers by {number}k in one week, cheap price {link}",
    "Thanks for sharing. Anyway, I buy all my {drug} from {link}, cheapest pharmacy!",
    "Click here to claim your free iPhone {number} !!! Limited offer {link}",
    "Crypto trading bot with {number}% monthly profit, join thousands of investors {link}",
    "Get paid ${price} for filling surveys online. Sign up free {link}",
    "Buy real or fake passports, driving licences, ID cards. Contact {mail}",
    "Looking for cheap custom essays? Order now and get {number}% off your first paper {link}",
    # harder spam: bland praise whose only payload is the author's link
    "Very nice post, thanks for sharing this information. Keep up the good work.",
    "I like this website very much, it is a very nice place to read and get information.",
    "Hello! This post could not be written any better! Reading this post reminds me of my old room mate!",
    "Wow, awesome blog layout! How long have you been blogging for? Great content.",
]
SPAM_OTHER = [
    "Купить {drug} без рецепта дешево, доставка по всему миру {link}",
    "Продвижение сайтов в ТОП Google, недорого, гарантия результата {link}",
    "Лучшее онлайн казино, бонус {number}% на первый депозит {link}",
    "Заработок в интернете от {price} рублей в день без вложений {link}",
    "最好的在线赌场，注册即送{number}元奖金 {link}",
    "专业SEO优化，快速提升网站排名，价格优惠 {link}",
    "高仿名牌手表，全场{number}折，货到付款 {link}",
    "Compra {drug} sin receta al mejor precio, envío discreto {link}",
    "Gana dinero desde casa, hasta {price} euros al día {link}",
    "Achetez {drug} sans ordonnance, livraison rapide et discrète {link}",
    "Crédit rapide sans justificatif, réponse immédiate {link}",
    "{drug} rezeptfrei kaufen, günstig und diskret {link}",
    "Online Casino mit {number} Freispielen ohne Einzahlung {link}",
]
DRUGS = ["viagra", "cialis", "tramadol", "xanax", "valium", "levitra", "oxycodone", "phentermine", "ambien",
         "propecia", "kamagra", "modafinil"]
COINS = ["bitcoin", "ethereum", "dogecoin", "our new token", "BTC", "crypto"]
BRANDS = ["Rolex", "Omega", "Gucci", "Louis Vuitton", "Cartier", "Prada"]
SEO = ["car insurance", "weight loss", "web hosting", "online dating", "payday loans", "essay writing", "forex",
       "cheap flights", "mortgages", "casino games"]
SPAM_DOMAINS = ["cheap-meds-online.example", "best-pharma24.example", "seo-rank-boost.example", "essaypro-writers.example",
                "crypto-double.example", "win-casino777.example", "fastloans-now.example", "replica-luxury.example",
                "free-gifts-claim.example", "hot-dates.example", "bit.ly", "tinyurl.com", "top-backlinks.example",
                "pills4less.example", "rx-discount.example"]
SPAM_NAMES = ["Best Pharmacy", "SEO Expert", "cheap viagra", "Essay Writer", "Crypto King", "Jennifer", "Mike",
              "Loans Online", "casino bonus", "buy cialis", "John Smith", "Rolex Replica", "web design"]


def _person(rng: random.Random) -> tuple[str, str]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    email = f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(MAIL)}".replace("ü", "u")
    return f"{first} {last}", email


def _ham(rng: random.Random) -> dict:
    author, email = _person(rng)
    slots = {
        "teacher": rng.choice(TEACHERS), "event": rng.choice(EVENTS), "child": rng.choice(FIRST),
        "day": rng.choice(DAYS), "class_": rng.choice(CLASSES), "thing": rng.choice(THINGS),
        "school_link": f"https://riverside-school.example/{rng.choice(['letters', 'news', 'calendar', 'clubs'])}",
        "event_fr": rng.choice(EVENTS_FR), "day_fr": rng.choice(DAYS_FR), "event_es": rng.choice(EVENTS_ES),
        "day_es": rng.choice(DAYS_ES), "event_de": rng.choice(EVENTS_DE), "day_de": rng.choice(DAYS_DE),
        "event_pl": rng.choice(EVENTS_PL), "day_pl": rng.choice(DAYS_PL),
        "amount": rng.choice(["120", "350", "1,200", "860", "2,045"]), "video": f"{rng.randint(10**9, 10**10):x}",
        "council": rng.choice(["leeds", "kent", "bristol", "camden", "norfolk"]),
    }
    template = rng.choice(HAM_OTHER) if rng.random() < 0.2 else rng.choice(HAM_EN)
    text = template.format(**slots)
    if rng.random() < 0.3:
        text += " " + rng.choice(["Thanks!", "Many thanks.", "Kind regards", "Best wishes", ":)", "Cheers",
                                  f"- {author.split()[0]}", f"({rng.choice(CLASSES)} parent)"])
    return {"content": text, "author": author, "email": email, "url": "", "label": "ham",
            "ip": f"81.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"}


def _link(rng: random.Random) -> str:
    domain = rng.choice(SPAM_DOMAINS)
    path = rng.choice(["", "buy", "offer", "go", "promo", "ref=" + str(rng.randint(100, 999)), "index.php?id=7"])
    return f"{rng.choice(['http', 'https'])}://{rng.choice(['', 'www.'])}{domain}/{path}"


def _spam(rng: random.Random) -> dict:
    slots = {
        "drug": rng.choice(DRUGS), "drug2": rng.choice(DRUGS), "dose": rng.choice(["100mg", "50mg", "20mg", "10mg"]),
        "price": rng.choice(["19", "49", "99", "250", "500", "1000", "5000"]), "link": _link(rng),
        "link2": _link(rng), "link3": _link(rng), "seo_topic": rng.choice(SEO), "number": rng.randint(2, 90),
        "number2": rng.randint(3, 30), "coin": rng.choice(COINS), "brand": rng.choice(BRANDS),
        "mail": f"{rng.choice(['agent', 'mr.bank', 'support', 'deals'])}{rng.randint(1, 999)}@{rng.choice(MAIL)}",
    }
    template = rng.choice(SPAM_OTHER) if rng.random() < 0.3 else rng.choice(SPAM_EN)
    text = template.format(**slots)
    if rng.random() < 0.25:
        text = text.upper() if rng.random() < 0.3 else text + " " + rng.choice(["!!!", "Hurry!", "Act now", "100% legit"])
    name = rng.choice(SPAM_NAMES)
    email = f"{name.split()[0].lower()}{rng.randint(1, 9999)}@{rng.choice(['mail.ru', 'qq.com', 'gmail.com', 'yandex.ru', 'outlook.com'])}"
    bland = "{" not in template and "http" not in text and "@" not in text
    url = _link(rng) if bland or rng.random() < 0.5 else ""
    return {"content": text, "author": name, "email": email, "url": url, "label": "spam",
            "ip": f"{rng.choice([5, 31, 45, 91, 185, 193])}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"}


def generate(count: int = 1200, seed: int = 18, spam_share: float = 0.45) -> list[dict]:
    rng = random.Random(seed)
    items = [_spam(rng) if rng.random() < spam_share else _ham(rng) for _ in range(count)]
    rng.shuffle(items)
    return items


# Short replies under a post, from families new to the site (names and mail providers the model
# has not seen): the model has little to go on, so other evidence weighs more.
SHORT_HAM = ["Thanks!", "Thank you so much.", "Lovely!", "Well done everyone!", "Brilliant, thanks.", "Great news.",
             "See you there!", "Congratulations!", "Many thanks", "Fantastic :)", "Good luck to the team!",
             "Amazing photos", "Thank you for letting us know.", "Noted, thanks.", "Will do!", "So proud of them all."]
NEW_FAMILIES = ["Ngozi Adeyemi", "Henrik Larsen", "Siobhan Byrne", "Tariq Hussain", "Ines Ferreira", "Dmitri Petrov",
                "Yuki Tanaka", "Bronwen Hughes", "Rafael Moreno", "Aoife Kelly", "Samir Haddad", "Freya Lindqvist"]
NEW_MAIL = ["sky.com", "virginmedia.com", "talktalk.net", "plus.net", "proton.me", "aol.com"]


def one_address_after_spam(count: int = 100, seed: int = 27) -> list[dict]:
    """Clean comments from many parents behind one address (a school's or a home's), after spam from it.

    The spam comes first, three times with the same text (the third is caught as repeated text
    whatever the model says); a guest on the same network sends another spam after every ten
    clean comments. The clean ones come from different people at that address: short replies
    from families new to the site (three in five) and generated ham.
    """
    rng = random.Random(seed)
    address = "81.2.69.160"
    spam = dict(_spam(rng), ip=address)
    items = [dict(spam) for _ in range(3)]
    for number in range(count):
        if number and number % 10 == 0:
            items.append(dict(_spam(rng), ip=address))
        ham = dict(_ham(rng), ip=address)
        if rng.random() < 0.6:
            name = rng.choice(NEW_FAMILIES)
            ham.update(content=rng.choice(SHORT_HAM), author=name,
                       email=f"{name.split()[0].lower()}{rng.randint(1, 99)}@{rng.choice(NEW_MAIL)}")
        items.append(ham)
    return items
