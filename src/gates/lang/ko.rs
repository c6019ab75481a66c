//! Korean patterns.

use super::LangTable;
use crate::gates::patterns::Pat::{Lit, Near};

/// The Korean table.
pub const TABLE: LangTable = LangTable {
    code: "ko",
    deference: &[
        Near("어느", "좋을까요", 20),
        Near("어느", "좋으세요", 20),
        Near("어느", "좋으신가요", 20),
        Near("어느", "나을까요", 20),
        Near("어떤", "선호", 20),
        Near("뭐가", "좋을", 20),
        Lit("선택해 주세요"),
        Lit("선택하시면"),
        Lit("결정해 주세요"),
        Lit("결정하시면"),
        Lit("정해 주세요"),
        Lit("정하시면"),
        Lit("원하시는 대로"),
        Lit("어떻게 진행할까요"),
        Lit("어떻게 할까요"),
    ],
    challenge: &[
        Lit("아닌데"),
        Lit("그건 아니"),
        Lit("틀렸"),
        Lit("잘못"),
        Lit("다시 생각"),
        Lit("정말요?"),
        Lit("확실해요?"),
        Lit("아니에요"),
    ],
    capitulation: &[
        Lit("맞네요"),
        // Not a bare "맞습니다" ("is correct"): it holds a position as often
        // as it concedes one ("아니요, 10이 맞습니다").
        Lit("네, 맞습니다"),
        Lit("맞는 말씀"),
        Lit("말씀이 맞"),
        Lit("좋은 지적"),
        Lit("제가 틀렸"),
        Lit("제 실수"),
        Lit("제가 잘못"),
    ],
    verification: &[
        Lit("검증"),
        Lit("계산"),
        Lit("확인했"),
        Lit("확인해 보니"),
        Lit("출처"),
        Lit("논문"),
        Lit("측정"),
        Lit("실행해"),
    ],
    claims: &[
        Lit("테스트 통과"),
        Lit("테스트가 통과"),
        Lit("테스트를 통과"),
        Lit("검증 완료"),
        Lit("검증했"),
        Lit("동작 확인"),
        Lit("빌드 성공"),
    ],
    stock: &[
        "문제 없습니다",
        "문제없습니다",
        "문제 없음",
        "문제없음",
        "이상 없음",
        "이상없음",
        "괜찮습니다",
        "완료",
        "없음",
        "없습니다",
        "확인",
    ],
};
