"""Site chrome for the junk corpus: fictional sites (``*.example`` hosts) in several languages,
each with its own header, navigation, footer and page layout, so that junk pages of one kind
do not share one template."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from html import escape


def h(s: str) -> str:
    return escape(s, quote=True)


def tag(seed: str, n: int = 8) -> str:
    """A stable hex token (bundle hashes, ray ids, nonces) derived from ``seed``."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:n]


@dataclass(frozen=True)
class Site:
    key: str
    name: str
    host: str
    lang: str
    layout: str  # semantic | bootstrap | table | docs | minimal | magazine
    nav: tuple[str, ...]
    search: str  # placeholder of the search box ('' = none)
    footer: tuple[str, ...]
    tagline: str = ""
    head: str = ""
    account: tuple[str, ...] = field(default_factory=tuple)

    @property
    def base(self) -> str:
        return f"https://{self.host}"


def _analytics(site: Site) -> str:
    gid = tag(site.key, 6).upper()
    return (
        f'<script async src="https://www.googletagmanager.com/gtag/js?id=G-{gid}"></script>\n'
        "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}"
        f"gtag('js',new Date());gtag('config','G-{gid}',{{anonymize_ip:true}});</script>"
    )


SITES: dict[str, Site] = {}


def _add(site: Site) -> None:
    SITES[site.key] = site


_add(Site("northwind", "Northwind Outfitters", "shop.northwind.example", "en", "semantic",
          ("Women", "Men", "Kids", "Camping", "Climbing", "Sale", "Gift cards"), "Search products",
          ("Shipping & returns", "Store locator", "Careers", "Privacy policy", "Terms of sale", "© 2024 Northwind Outfitters Ltd."),
          tagline="Gear for every trail", account=("Sign in", "Wishlist", "Cart (0)")))
_add(Site("ledger", "The Daily Ledger", "www.dailyledger.example", "en", "magazine",
          ("World", "Politics", "Business", "Tech", "Science", "Culture", "Sport", "Opinion"), "Search the Ledger",
          ("About us", "Contact the newsroom", "Corrections", "Advertise", "Privacy", "Cookie settings", "© The Daily Ledger Media Group"),
          tagline="Independent reporting since 1921", account=("Subscribe", "Log in")))
_add(Site("kuechenwerk", "Küchenwerk", "www.kuechenwerk.example", "de", "bootstrap",
          ("Rezepte", "Backen", "Vegetarisch", "Saisonkalender", "Küchentipps", "Magazin"), "Rezept suchen",
          ("Impressum", "Datenschutz", "AGB", "Kontakt", "Mediadaten", "© 2024 Küchenwerk Verlag GmbH"),
          tagline="Gut kochen, jeden Tag", account=("Anmelden", "Mein Kochbuch")))
_add(Site("quotidien", "Le Quotidien du Port", "www.quotidien-port.example", "fr", "magazine",
          ("Actualité", "Région", "Économie", "Sports", "Culture", "Loisirs", "Nécrologie"), "Rechercher un article",
          ("Mentions légales", "Politique de confidentialité", "Gestion des cookies", "Nous contacter", "Abonnements", "© Le Quotidien du Port"),
          tagline="L'information de la côte", account=("S'abonner", "Se connecter")))
_add(Site("sierra", "Diario Sierra", "www.diariosierra.example", "es", "semantic",
          ("Portada", "Local", "España", "Internacional", "Deportes", "Cultura", "Tecnología"), "Buscar noticias",
          ("Aviso legal", "Política de privacidad", "Política de cookies", "Contacto", "Publicidad", "© Ediciones Sierra S.L."),
          tagline="Noticias de la sierra y del mundo", account=("Suscríbete", "Iniciar sesión")))
_add(Site("reteviaggi", "Rete Viaggi", "www.reteviaggi.example", "it", "bootstrap",
          ("Destinazioni", "Offerte", "Weekend", "Montagna", "Mare", "Guide"), "Cerca una destinazione",
          ("Chi siamo", "Contatti", "Privacy", "Cookie policy", "Condizioni generali", "P.IVA 01234567890"),
          account=("Accedi", "Preferiti")))
_add(Site("fietsplein", "Fietsplein", "www.fietsplein.example", "nl", "semantic",
          ("Fietsen", "E-bikes", "Onderdelen", "Kleding", "Werkplaats", "Outlet"), "Zoek in de winkel",
          ("Klantenservice", "Verzenden en retourneren", "Privacyverklaring", "Algemene voorwaarden", "© Fietsplein B.V."),
          tagline="Alles voor de fietser", account=("Inloggen", "Winkelwagen")))
_add(Site("kitedocs", "Kiteworks Docs", "docs.kiteworks.example", "en", "docs",
          ("Getting started", "Installation", "Configuration", "CLI reference", "REST API", "Webhooks", "Troubleshooting", "Changelog"),
          "Search docs", ("Status", "GitHub", "Community", "Privacy", "© Kiteworks, Inc."), account=("Dashboard",)))
_add(Site("railforum", "Model Rail Forum", "forum.modelrail.example", "en", "table",
          ("Board index", "FAQ", "Members", "Search", "Calendar"), "Search…",
          ("Powered by a forum package", "Time zone UTC", "Delete cookies", "Contact us"), account=("Register", "Login")))
_add(Site("saude", "Portal Saúde", "www.portalsaude.example", "pt", "magazine",
          ("Doenças", "Alimentação", "Exercício", "Bem-estar", "Crianças", "Idosos"), "Pesquisar",
          ("Quem somos", "Política de privacidade", "Termos de uso", "Fale conosco", "© Portal Saúde"),
          account=("Assine", "Entrar")))
_add(Site("wydarzenia", "Wydarzenia Kraków", "www.wydarzenia-krakow.example", "pl", "bootstrap",
          ("Koncerty", "Teatr", "Wystawy", "Dla dzieci", "Sport", "Kalendarz"), "Szukaj wydarzeń",
          ("Regulamin", "Polityka prywatności", "Kontakt", "Reklama", "© Wydarzenia Kraków sp. z o.o."),
          account=("Zaloguj się",)))
_add(Site("cornerstone", "Cornerstone University", "www.cornerstone-u.example", "en", "semantic",
          ("Study", "Research", "Campus life", "Library", "Alumni", "News & events", "About"), "Search Cornerstone",
          ("Accessibility", "Freedom of information", "Modern slavery statement", "Privacy", "Cornerstone University is a registered charity"),
          account=("Staff intranet", "Student portal")))
_add(Site("aurora", "Aurora Bank", "www.aurorabank.example", "en", "minimal",
          ("Personal", "Business", "Mortgages", "Savings", "Help"), "",
          ("Security centre", "Accessibility", "Legal", "Aurora Bank plc is authorised and regulated", "© Aurora Bank plc"),
          account=("Log on",)))
_add(Site("hemma", "Hemma & Trädgård", "www.hemmatradgard.example", "sv", "semantic",
          ("Inspiration", "Trädgård", "Renovering", "Inredning", "Guider"), "Sök",
          ("Om oss", "Kontakta oss", "Integritetspolicy", "Cookies", "© Hemma & Trädgård AB"), account=("Logga in",)))
_add(Site("jobpost", "Jobpost", "www.jobpost.example", "en", "bootstrap",
          ("Find jobs", "Companies", "Salaries", "Career advice", "Post a job"), "Job title, skill or company",
          ("About Jobpost", "Help centre", "Privacy", "Terms", "Cookie preferences", "© 2024 Jobpost"), account=("Sign in", "Employers")))
_add(Site("sakura", "さくら旅行ガイド", "www.sakura-guide.example", "ja", "magazine",
          ("国内旅行", "海外旅行", "グルメ", "温泉", "季節のイベント"), "キーワードで検索",
          ("会社概要", "プライバシーポリシー", "お問い合わせ", "© さくら旅行ガイド"), account=("ログイン",)))


def _nav_links(site: Site) -> list[tuple[str, str]]:
    out = []
    for item in site.nav:
        slug = "".join(c if c.isalnum() else "-" for c in item.lower()).strip("-") or "x"
        out.append((f"/{slug}/", item))
    return out


def _search_form(site: Site, value: str = "") -> str:
    if not site.search:
        return ""
    v = f' value="{h(value)}"' if value else ""
    return (f'<form class="search" action="/search" method="get" role="search">'
            f'<input type="search" name="q" placeholder="{h(site.search)}"{v} aria-label="{h(site.search)}">'
            f'<button type="submit">&#128269;</button></form>')


def _footer(site: Site) -> str:
    items = "".join(f"<li><a href=\"/{tag(site.key + x, 4)}\">{h(x)}</a></li>" if not x.startswith("©") else f"<li>{h(x)}</li>" for x in site.footer)
    return f'<footer class="site-footer"><ul class="footer-links">{items}</ul></footer>'


def render(site: Site, title: str, main: str, *, sidebar: str = "", head: str = "", scripts: str = "",
           body_class: str = "", search_value: str = "", description: str = "", analytics: bool = True) -> str:
    """A full page of ``site`` with ``main`` as its content region."""
    css = f'<link rel="stylesheet" href="/assets/{site.key}.{tag(site.key + "css")}.css">'
    meta_desc = f'\n<meta name="description" content="{h(description)}">' if description else ""
    head_html = (
        f'<!DOCTYPE html>\n<html lang="{site.lang}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{h(title)}</title>{meta_desc}\n'
        f"{css}\n{site.head}{_analytics(site) if analytics else ''}\n{head}\n</head>\n"
    )
    nav = _nav_links(site)
    account = "".join(f'<a class="acct" href="/account/{i}">{h(a)}</a>' for i, a in enumerate(site.account))
    cls = f' class="{body_class}"' if body_class else ""
    if site.layout == "semantic":
        lis = "".join(f'<li><a href="{u}">{h(t)}</a></li>' for u, t in nav)
        body = (
            f'<body{cls}>\n<a class="skip" href="#main">Skip to content</a>\n<header class="masthead">'
            f'<a class="logo" href="/">{h(site.name)}</a>'
            + (f'<span class="tagline">{h(site.tagline)}</span>' if site.tagline else "")
            + f'{_search_form(site, search_value)}<div class="account">{account}</div>'
            f'<nav class="primary"><ul>{lis}</ul></nav></header>\n'
            f'<main id="main">\n{main}\n</main>\n'
            + (f'<aside class="sidebar">{sidebar}</aside>\n' if sidebar else "")
            + f"{_footer(site)}\n"
        )
    elif site.layout == "bootstrap":
        lis = "".join(f'<li class="nav-item"><a class="nav-link" href="{u}">{h(t)}</a></li>' for u, t in nav)
        col = "col-lg-8" if sidebar else "col-12"
        body = (
            f'<body{cls}>\n<div id="page" class="site">\n<div class="top-bar d-none d-md-block"><div class="container">{account}</div></div>\n'
            f'<div class="navbar navbar-expand-lg navbar-light bg-light"><div class="container">'
            f'<a class="navbar-brand" href="/">{h(site.name)}</a><button class="navbar-toggler" type="button" data-toggle="collapse" '
            f'data-target="#nav"><span class="navbar-toggler-icon"></span></button><div class="collapse navbar-collapse" id="nav">'
            f'<ul class="navbar-nav mr-auto">{lis}</ul>{_search_form(site, search_value)}</div></div></div>\n'
            f'<div class="container content-area"><div class="row"><div class="{col}" id="content">\n{main}\n</div>'
            + (f'<div class="col-lg-4 widget-area">{sidebar}</div>' if sidebar else "")
            + f'</div></div>\n<div id="colophon">{_footer(site)}</div>\n</div>\n'
        )
    elif site.layout == "magazine":
        lis = "".join(f'<a class="section-link" href="{u}">{h(t)}</a>' for u, t in nav)
        body = (
            f'<body{cls}>\n<div class="ad-slot ad-leaderboard" data-slot="top" aria-hidden="true"></div>\n'
            f'<header class="site-header"><div class="header-inner"><div class="date-line">{h(site.tagline)}</div>'
            f'<div class="brand"><a href="/">{h(site.name)}</a></div><div class="header-actions">{account}</div></div>'
            f'<div class="section-nav" role="navigation">{lis}</div>{_search_form(site, search_value)}</header>\n'
            f'<div class="layout"><div class="main-column">\n{main}\n</div>'
            + (f'<div class="rail">{sidebar}</div>' if sidebar else "")
            + f'</div>\n{_footer(site)}\n<div class="ad-slot ad-sticky" data-slot="bottom" aria-hidden="true"></div>\n'
        )
    elif site.layout == "table":
        lis = " &bull; ".join(f'<a href="{u}">{h(t)}</a>' for u, t in nav)
        body = (
            f'<body{cls} id="phpbb">\n<div id="wrap"><div class="headerbar"><div class="inner">'
            f'<a id="logo" href="/index.php"><span class="site_logo"></span></a><h1>{h(site.name)}</h1>'
            f'<p class="skiplink"><a href="#start_here">Skip to content</a></p></div></div>\n'
            f'<table class="navbar" width="100%" cellspacing="0"><tr><td class="nav-links">{lis}</td>'
            f'<td class="nav-account" align="right">{account}</td></tr></table>\n'
            f'<a id="start_here"></a><div id="page-body">\n{main}\n</div>\n'
            f'<div id="page-footer">{_footer(site)}</div></div>\n'
        )
    elif site.layout == "docs":
        lis = "".join(f'<li><a class="sidebar-link" href="/docs{u}">{h(t)}</a></li>' for u, t in nav)
        body = (
            f'<body{cls}>\n<div class="docs-topbar"><a class="docs-logo" href="/">{h(site.name)}</a>'
            f'{_search_form(site, search_value)}<span class="version-select">v4.2 &#9662;</span>{account}</div>\n'
            f'<div class="docs-layout"><nav class="docs-sidebar" aria-label="Documentation"><ul>{lis}</ul></nav>\n'
            f'<div class="docs-content" role="main">\n{main}\n</div>'
            + (f'<div class="docs-toc">{sidebar}</div>' if sidebar else "")
            + f'</div>\n{_footer(site)}\n'
        )
    else:  # minimal
        links = "".join(f'<a href="{u}">{h(t)}</a>' for u, t in nav)
        body = (
            f'<body{cls}>\n<div class="shell"><div class="brandbar"><a class="brand" href="/">{h(site.name)}</a>'
            f'<div class="links">{links}</div>{account}</div>\n<div class="panel">\n{main}\n</div>\n{_footer(site)}</div>\n'
        )
    return head_html + body + (scripts + "\n" if scripts else "") + "</body>\n</html>\n"


def bare(title: str, body: str, *, lang: str = "en", head: str = "", body_attrs: str = "") -> str:
    """A page without any site chrome (challenge pages, server defaults, viewers)."""
    attrs = f" {body_attrs}" if body_attrs else ""
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">\n<title>{h(title)}</title>\n{head}\n</head>\n'
            f"<body{attrs}>\n{body}\n</body>\n</html>\n")


def ul(items, cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f"<ul{c}>" + "".join(f"<li>{x}</li>" for x in items) + "</ul>"


def link_list(pairs, cls: str = "") -> str:
    return ul((f'<a href="{u}">{h(t)}</a>' for u, t in pairs), cls)
