//! The bot page's words on signed requests (SR11): whether requests carry Web Bot Auth
//! signatures, where the public keys are, how they are rotated and how a publisher checks
//! one. Part of the User-Agent section: both say how to tell our requests from others.

use super::lang::Lang;
use super::page::para;
use super::words::{duration, esc};
use tidings_fetch::botkeys::DIRECTORY_PATH;
use tidings_policy::Profile;

pub(super) fn signing(html: &mut String, profile: &Profile, lang: Lang) {
    let s = &profile.signing;
    if !s.enabled {
        para(
            html,
            &tr!(
                lang,
                "Our requests are not signed: they carry no HTTP Message Signatures (Web Bot \
                 Auth).",
                "Nos requêtes ne sont pas signées : elles ne portent aucune signature HTTP \
                 Message Signatures (Web Bot Auth).",
                "Nossas requisições não são assinadas: não trazem nenhuma assinatura HTTP \
                 Message Signatures (Web Bot Auth).",
            ),
        );
        return;
    }
    let validity = duration(lang, s.signature_validity);
    let lifetime = duration(lang, s.key_lifetime);
    let before = duration(lang, s.rotate_before);
    // As `botkeys::next_key_start` computes it.
    let ahead = duration(lang, s.directory_max_age.min(s.rotate_before / 2));
    let path = DIRECTORY_PATH;
    html.push_str(&format!(
        "<h3>{}</h3>\n",
        tr!(
            lang,
            "Signed requests",
            "Requêtes signées",
            "Requisições assinadas",
        )
    ));
    para(
        html,
        &tr!(
            lang,
            "Every request we make, robots.txt and each redirect included, is signed with an \
             Ed25519 key using HTTP Message Signatures (Web Bot Auth, RFC 9421). It carries \
             the headers <code>Signature-Input</code>, <code>Signature</code> and \
             <code>Signature-Agent</code>; the signature covers the host the request is sent \
             to (<code>@authority</code>) and the <code>Signature-Agent</code> header, and is \
             valid for {validity}.",
            "Chacune de nos requêtes, robots.txt et chaque redirection compris, est signée \
             avec une clé Ed25519 au moyen de HTTP Message Signatures (Web Bot Auth, \
             RFC 9421). Elle porte les en-têtes <code>Signature-Input</code>, \
             <code>Signature</code> et <code>Signature-Agent</code> ; la signature couvre \
             l’hôte auquel la requête est adressée (<code>@authority</code>) ainsi que \
             l’en-tête <code>Signature-Agent</code>, et reste valable {validity}.",
            "Toda requisição que fazemos, incluindo o robots.txt e cada redirecionamento, é \
             assinada com uma chave Ed25519 por meio de HTTP Message Signatures (Web Bot \
             Auth, RFC 9421). Ela traz os cabeçalhos <code>Signature-Input</code>, \
             <code>Signature</code> e <code>Signature-Agent</code>; a assinatura cobre o host \
             para o qual a requisição é enviada (<code>@authority</code>) e o cabeçalho \
             <code>Signature-Agent</code>, e vale por {validity}.",
        ),
    );
    let published = tr!(
        lang,
        "Our public keys are published as a JSON Web Key Set at \
         <a href=\"{path}\">{path}</a>.",
        "Nos clés publiques sont publiées sous forme de jeu de clés JSON (JWK Set) à \
         l’adresse <a href=\"{path}\">{path}</a>.",
        "Nossas chaves públicas são publicadas como um conjunto de chaves JSON (JWK Set) em \
         <a href=\"{path}\">{path}</a>.",
    );
    let agent = match s.agent.as_deref().map(esc) {
        Some(agent) => tr!(
            lang,
            "The <code>Signature-Agent</code> header of each request names the origin that \
             serves them: <code>{agent}</code>.",
            "L’en-tête <code>Signature-Agent</code> de chaque requête nomme l’origine qui les \
             sert : <code>{agent}</code>.",
            "O cabeçalho <code>Signature-Agent</code> de cada requisição indica a origem que \
             as serve: <code>{agent}</code>.",
        ),
        None => tr!(
            lang,
            "The <code>Signature-Agent</code> header of each request names the origin that \
             serves them.",
            "L’en-tête <code>Signature-Agent</code> de chaque requête nomme l’origine qui les \
             sert.",
            "O cabeçalho <code>Signature-Agent</code> de cada requisição indica a origem que \
             as serve.",
        ),
    };
    para(html, &format!("{published} {agent}"));
    para(
        html,
        &tr!(
            lang,
            "Keys are rotated: each is valid for {lifetime}. The next one is made {before} \
             before the current one ends, published at once and used {ahead} later, once \
             cached copies of the directory have expired; an older key stays published until \
             it expires, so a signature can be checked for as long as its key is valid.",
            "Les clés changent régulièrement : chacune est valable {lifetime}. La suivante \
             est créée {before} avant la fin de la clé en cours, publiée aussitôt et utilisée \
             {ahead} plus tard, quand les copies du répertoire en cache ont expiré ; une \
             ancienne clé reste publiée jusqu’à son expiration, de sorte qu’une signature \
             peut être vérifiée tant que sa clé est valable.",
            "As chaves são trocadas periodicamente: cada uma vale por {lifetime}. A próxima é \
             criada {before} antes do fim da chave atual, publicada logo e usada {ahead} \
             depois, quando as cópias do diretório em cache já expiraram; uma chave antiga \
             continua publicada até expirar, de modo que uma assinatura pode ser verificada \
             enquanto a sua chave for válida.",
        ),
    );
    para(
        html,
        &tr!(
            lang,
            "To check a request, fetch the key directory from the origin named in \
             <code>Signature-Agent</code>, take the key whose RFC 7638 thumbprint is the \
             signature’s <code>keyid</code>, and verify the signature over the request as you \
             received it. The directory’s answer is itself signed by each of its keys (tag \
             <code>http-message-signatures-directory</code>), over the host you asked and its \
             <code>Content-Digest</code>.",
            "Pour vérifier une requête, récupérez le répertoire de clés sur l’origine nommée \
             par <code>Signature-Agent</code>, prenez la clé dont l’empreinte RFC 7638 est le \
             <code>keyid</code> de la signature, puis vérifiez la signature sur la requête \
             telle que vous l’avez reçue. La réponse du répertoire est elle-même signée par \
             chacune de ses clés (étiquette <code>http-message-signatures-directory</code>), \
             sur l’hôte interrogé et son <code>Content-Digest</code>.",
            "Para verificar uma requisição, busque o diretório de chaves na origem indicada \
             em <code>Signature-Agent</code>, pegue a chave cuja impressão digital RFC 7638 é \
             o <code>keyid</code> da assinatura e verifique a assinatura sobre a requisição \
             tal como você a recebeu. A própria resposta do diretório é assinada por cada uma \
             das suas chaves (etiqueta <code>http-message-signatures-directory</code>), sobre \
             o host consultado e o seu <code>Content-Digest</code>.",
        ),
    );
}
